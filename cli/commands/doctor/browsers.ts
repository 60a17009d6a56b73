/**
 * Is a Chromium-based browser installed? Looks for the usual executables on PATH, then in the
 * standard install locations of Linux, macOS and Windows.
 */
import { existsSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'

const COMMANDS = [
  'google-chrome',
  'google-chrome-stable',
  'google-chrome-beta',
  'chromium',
  'chromium-browser',
  'microsoft-edge',
  'microsoft-edge-stable',
  'brave-browser',
  'vivaldi',
  'opera',
]

const MAC_APPS = ['Google Chrome', 'Chromium', 'Microsoft Edge', 'Brave Browser', 'Vivaldi', 'Arc']

function standardLocations(env: NodeJS.ProcessEnv): string[] {
  const home = homedir()
  const mac = MAC_APPS.flatMap((app) => [
    `/Applications/${app}.app/Contents/MacOS/${app}`,
    join(home, 'Applications', `${app}.app`, 'Contents', 'MacOS', app),
  ])
  const windowsRoots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter(
    (root): root is string => Boolean(root),
  )
  const windows = windowsRoots.flatMap((root) => [
    join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'),
    join(root, 'Microsoft', 'Edge', 'Application', 'msedge.exe'),
    join(root, 'BraveSoftware', 'Brave-Browser', 'Application', 'brave.exe'),
    join(root, 'Chromium', 'Application', 'chrome.exe'),
  ])
  const linux = [
    '/opt/google/chrome/chrome',
    '/opt/microsoft/msedge/msedge',
    '/opt/brave.com/brave/brave',
    '/snap/bin/chromium',
    '/usr/bin/chromium',
    '/usr/bin/google-chrome',
  ]
  return [...linux, ...mac, ...windows]
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** The first Chromium-based browser found, or null. */
export function findChromiumBrowser(env: NodeJS.ProcessEnv = process.env): string | null {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean)
  const suffixes = process.platform === 'win32' ? ['.exe', '.cmd', ''] : ['']
  for (const dir of dirs)
    for (const command of COMMANDS)
      for (const suffix of suffixes) {
        const candidate = join(dir, `${command}${suffix}`)
        if (isFile(candidate)) return candidate
      }
  return standardLocations(env).find((path) => existsSync(path) && isFile(path)) ?? null
}

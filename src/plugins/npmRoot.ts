/**
 * The npm global package folder, asked from npm itself (`npm root -g`) so that every way of setting
 * the prefix (NPM_CONFIG_PREFIX, .npmrc, nvm) is respected.
 */
import { execFile } from 'node:child_process'

const NPM_TIMEOUT_MS = 15_000

export function npmGlobalRoot(env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['root', '-g'],
      { env, timeout: NPM_TIMEOUT_MS, windowsHide: true },
      (error, stdout) => {
        const root = stdout.trim().split('\n').pop()?.trim() ?? ''
        if (error || root === '')
          reject(new Error(error ? error.message.split('\n')[0] : 'npm printed no folder'))
        else resolve(root)
      },
    )
  })
}

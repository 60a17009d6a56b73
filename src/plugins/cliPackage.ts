/**
 * What `bridge update` installs: this project's own package, and only the bytes it checked. The
 * registry's metadata is read first (it must identify as this project), then the tarball is fetched
 * with `npm pack` (npm checks its integrity against the registry) and its own package.json is read
 * and checked again: the right name and version, `"bridge": { "role": "cli" }`, and no program but
 * bridge's own (`bridge`, `bridge-mcp`, `bridge-plugin`). npm installs a tarball by dropping the first
 * folder name of every entry, whatever it is, so a tarball with any entry outside `package/` (a second
 * folder whose package.json would land on top of the one checked) is refused, as is one naming a file
 * twice. Only then is that very
 * tarball installed, the one install that links programs; and after it, the installed package.json and
 * the programs linked to it are read again and, when they differ from what was checked, the previous
 * version is put back (or the package removed), as plugin installs do.
 */
import { execFile } from 'node:child_process'
import { lstatSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve, sep } from 'node:path'
import { promisify } from 'node:util'
import { BridgeError, BridgeErrorCode } from '../errors'
import { BRIDGE_PACKAGE_ROLE } from '../protocol/constants'
import { neutralizeText } from '../protocol/untrustedText'
import { npmProblem, runNpm } from './npm'
import { declaredExecutables, installPackage, readPackageJson, uninstallPackage } from './npmPackages'
import { npmGlobalRoot } from './npmRoot'

const run = promisify(execFile)
/** The programs this project's package links, and no other. */
export const CLI_PROGRAMS: readonly string[] = ['bridge', 'bridge-mcp', 'bridge-plugin']
const NPM_PACK_TIMEOUT_MS = 5 * 60_000
const NPM_INSTALL_TIMEOUT_MS = 5 * 60_000
const MAX_MANIFEST_BYTES = 1024 * 1024
const MAX_LISTING_BYTES = 64 * 1024 * 1024
/** The folder npm takes a package's files from; every entry of a tarball must be inside it. */
const PACKAGE_FOLDER = 'package/'

/** Why a package.json (the registry's or the tarball's) is not this project's; undefined when it is. */
export function notThisProject(manifest: Record<string, unknown>): string | undefined {
  const field = manifest.bridge
  const role =
    typeof field === 'object' && field !== null ? (field as Record<string, unknown>).role : undefined
  if (role !== BRIDGE_PACKAGE_ROLE) {
    const found =
      field === undefined
        ? 'it has no "bridge" field'
        : `its "bridge" field is ${neutralizeText(JSON.stringify(field), 200)}`
    const description =
      typeof manifest.description === 'string' && manifest.description !== ''
        ? `; it describes itself as "${neutralizeText(manifest.description, 200)}"`
        : ''
    return `its package.json does not carry "bridge": { "role": "${BRIDGE_PACKAGE_ROLE}" } (${found}${description})`
  }
  const others = declaredExecutables(manifest).filter((name) => !CLI_PROGRAMS.includes(name))
  if (others.length > 0)
    return `it would put programs other than bridge's own on PATH (${others.map((n) => neutralizeText(n, 60)).join(', ')})`
  return undefined
}

/**
 * Fetches `name@version` into a private temp folder, checks the tarball's own package.json and, when it
 * is this project's, installs that tarball globally. Throws BridgeError saying what was found otherwise;
 * nothing is installed then.
 */
export async function installCliPackage(
  name: string,
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-update-'))
  try {
    const packed = await runNpm(
      ['pack', '--json', '--pack-destination', dir, '--', `${name}@${version}`],
      env,
      NPM_PACK_TIMEOUT_MS,
    )
    if (packed.code !== 0)
      throw new BridgeError(
        BridgeErrorCode.npmFailed,
        `npm could not fetch ${name}@${version}: ${npmProblem(packed)}`,
      )
    const file = join(dir, tarballName(packed.stdout))
    const shown = `${name}@${neutralizeText(version, 40)}`
    const stray = strayEntries(await tarballEntries(file))
    if (stray.length > 0)
      throw new BridgeError(
        BridgeErrorCode.pluginInvalid,
        `the tarball of ${shown} holds entries npm would install in place of the package checked (outside ${PACKAGE_FOLDER}, or naming one file twice: ${stray
          .slice(0, 3)
          .map((entry) => neutralizeText(entry, 80))
          .join(', ')}${stray.length > 3 ? `, and ${stray.length - 3} more` : ''}). Nothing was installed`,
      )
    const manifest = await tarballManifest(file)
    if (manifest.name !== name || manifest.version !== version)
      throw new BridgeError(
        BridgeErrorCode.pluginInvalid,
        `the tarball of ${shown} says it is ${neutralizeText(JSON.stringify([manifest.name, manifest.version]), 120)}; nothing was installed`,
      )
    const stranger = notThisProject(manifest)
    if (stranger)
      throw new BridgeError(
        BridgeErrorCode.pluginInvalid,
        `the tarball of ${shown} is not this project: ${stranger}. Nothing was installed`,
      )
    const root = await npmGlobalRoot(env)
    const packageDir = join(root, name)
    const previous = readPackageJson(packageDir)?.version
    const installed = await runNpm(
      ['install', '--global', '--ignore-scripts', '--no-audit', '--no-fund', '--', file],
      env,
      NPM_INSTALL_TIMEOUT_MS,
    )
    if (installed.code !== 0)
      throw new BridgeError(
        BridgeErrorCode.npmFailed,
        `npm could not install ${shown}: ${npmProblem(installed)}`,
      )
    // What landed on disk decides: read again, and undone when it is not what was checked.
    const differs = installedDiffers(packageDir, globalBinDir(root), manifest)
    if (differs === undefined) return
    let rollback = typeof previous === 'string' ? `put ${name}@${previous} back` : 'removed it again'
    try {
      if (typeof previous === 'string') await installPackage(name, previous, env, { binLinks: true })
      else await uninstallPackage(name, env)
    } catch (error) {
      rollback = `could not undo the install (${error instanceof Error ? error.message : String(error)})`
    }
    throw new BridgeError(
      BridgeErrorCode.pluginInvalid,
      `what npm installed for ${shown} is not what was checked: ${differs}; ${rollback}`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function tarballName(stdout: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout)
  } catch {
    parsed = undefined
  }
  const first: unknown = Array.isArray(parsed) ? parsed[0] : undefined
  const filename =
    typeof first === 'object' && first !== null ? (first as Record<string, unknown>).filename : undefined
  if (typeof filename !== 'string' || !/^[\w@.+-]+\.tgz$/.test(filename.replace(/^@[^/]+\//, '')))
    throw new BridgeError(BridgeErrorCode.npmFailed, 'npm pack did not name the tarball it wrote')
  // A scoped package's tarball is written as scope-name-version.tgz.
  return filename.replace(/^@/, '').replace(/\//, '-')
}

/** Every entry's path in the tarball, as tar lists it (control characters escaped). */
async function tarballEntries(file: string): Promise<string[]> {
  try {
    const { stdout } = await run('tar', ['-tzf', file], { maxBuffer: MAX_LISTING_BYTES })
    return stdout.split('\n').filter((line) => line !== '')
  } catch (error) {
    throw new BridgeError(
      BridgeErrorCode.pluginInvalid,
      'the tarball could not be read; nothing was installed',
      {
        cause: error,
      },
    )
  }
}

/**
 * The entries that are not one plain path inside `package/`: outside it, with a `.`, `..` or empty
 * step (npm resolves them, tar's own lookup does not), or a path already seen (the later copy is the
 * one npm leaves on disk). What is left is exactly what was read from the tarball.
 */
function strayEntries(entries: readonly string[]): string[] {
  const seen = new Set<string>()
  return entries.filter((entry) => {
    const path = entry.replace(/\/$/, '')
    const steps = path.split('/')
    const stray =
      !entry.startsWith(PACKAGE_FOLDER) ||
      steps.some((step) => step === '' || step === '.' || step === '..') ||
      seen.has(path)
    seen.add(path)
    return stray
  })
}

/** Where npm links global programs: `<prefix>/bin` beside `<prefix>/lib/node_modules`, `<prefix>` on Windows. */
function globalBinDir(root: string): string {
  return process.platform === 'win32' ? dirname(root) : join(dirname(dirname(root)), 'bin')
}

/**
 * Why the installed package is not the one checked (name, version, role, the programs it declares, and
 * the programs linked into it from the bin folder); undefined when it is.
 */
function installedDiffers(
  packageDir: string,
  binDir: string,
  checked: Record<string, unknown>,
): string | undefined {
  const installed = readPackageJson(packageDir)
  if (installed === undefined) return 'it has no package.json'
  const identity = (m: Record<string, unknown>) =>
    JSON.stringify([m.name, m.version, notThisProject(m) ?? 'ok', declaredExecutables(m).sort()])
  if (identity(installed) !== identity(checked))
    return `its package.json says ${neutralizeText(identity(installed), 300)}`
  const wanted = declaredExecutables(checked).sort()
  const linked = programsLinkedInto(binDir, packageDir)
  if (JSON.stringify(linked) !== JSON.stringify(wanted))
    return `it linked the programs ${neutralizeText(linked.join(', ') || 'none', 300)} (checked: ${wanted.join(', ') || 'none'})`
  return undefined
}

/** The programs in `binDir` that are links into `packageDir`, sorted. */
function programsLinkedInto(binDir: string, packageDir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(binDir)
  } catch {
    return []
  }
  const inside = resolve(packageDir) + sep
  return names
    .filter((name) => {
      const path = join(binDir, name)
      try {
        return lstatSync(path).isSymbolicLink() && resolve(binDir, readlinkSync(path)).startsWith(inside)
      } catch {
        return false
      }
    })
    .sort()
}

/** The tarball's own package.json (`package/package.json`, the one npm installs from). */
async function tarballManifest(file: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = (await run('tar', ['-xzOf', file, 'package/package.json'], { maxBuffer: MAX_MANIFEST_BYTES }))
      .stdout
  } catch (error) {
    throw new BridgeError(
      BridgeErrorCode.pluginInvalid,
      'the tarball has no package/package.json; nothing was installed',
      {
        cause: error,
      },
    )
  }
  let manifest: unknown
  try {
    manifest = JSON.parse(text)
  } catch {
    manifest = undefined
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    throw new BridgeError(
      BridgeErrorCode.pluginInvalid,
      "the tarball's package.json is not one JSON object; nothing was installed",
    )
  return manifest as Record<string, unknown>
}

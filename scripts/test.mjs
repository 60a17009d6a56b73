// Runs the whole vitest suite and ends with one plain summary line ("tests: N passed, N failed,
// N skipped") that CI reads. Exits non-zero on any failure, or when no test ran at all.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const report = join(root, '.tmp', 'vitest-report.json')
mkdirSync(dirname(report), { recursive: true })
rmSync(report, { force: true })

const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
]
const run = spawnSync('npx', args, { cwd: root, stdio: 'inherit' })

if (!existsSync(report)) {
  console.log('tests: 0 passed, 1 failed (vitest wrote no report)')
  process.exit(run.status || 1)
}
const r = JSON.parse(readFileSync(report, 'utf8'))
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
// Files that failed to load count as failures even when no test inside them ran.
const brokenFiles = (r.testResults ?? []).filter(
  (f) => f.status === 'failed' && f.assertionResults.length === 0,
).length
// Vitest also fails a run for errors outside any test (an unhandled rejection, a type error in a
// type-checked file): count that as one failure so the summary line never says 0 of a failed run.
const outside = run.status !== 0 && r.numFailedTests + brokenFiles === 0 ? 1 : 0
const failed = r.numFailedTests + brokenFiles + outside
if (outside) console.log('\nvitest reported errors outside the tests (see above)')
console.log(`\ntests: ${r.numPassedTests} passed, ${failed} failed, ${skipped} skipped`)
process.exit(run.status !== 0 || failed > 0 || r.numPassedTests === 0 ? 1 : 0)

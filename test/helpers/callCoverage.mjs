// Preloaded into a test daemon (NODE_OPTIONS=--import) to learn which files a call executes: V8's
// precise coverage with call counts runs from start; each SIGUSR2 writes the functions called since
// the previous one to `$BRIDGE_TEST_COVERAGE_DIR/<n>.json` and starts counting afresh. Plain
// JavaScript, because it runs in the built daemon, outside vitest.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'

const dir = process.env.BRIDGE_TEST_COVERAGE_DIR
if (dir) {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
  let taken = 0
  process.on('SIGUSR2', () => {
    void session.post('Profiler.takePreciseCoverage').then(({ result }) => {
      const called = result
        .filter((script) => script.url.startsWith('file:'))
        .map((script) => ({
          url: script.url,
          offsets: script.functions.filter((f) => f.ranges[0].count > 0).map((f) => f.ranges[0].startOffset),
        }))
        .filter((script) => script.offsets.length > 0)
      writeFileSync(join(dir, `${taken++}.json`), JSON.stringify(called))
    })
  })
}

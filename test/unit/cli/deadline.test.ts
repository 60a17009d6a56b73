// The CLI's requests to the daemon end by their deadline even when `fetch` never settles (a daemon
// killed at the wrong moment): the deadline's timer holds the process open, so the command reports
// "no answer" instead of ending silently with exit code 13 (an unsettled top-level await).
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildSync } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { withDeadline } from '../../../src/http/daemonClient'

const root = join(import.meta.dirname, '..', '..', '..')

describe('withDeadline', () => {
  it('answers with the work when it finishes in time', async () => {
    expect(await withDeadline(1_000, () => Promise.resolve('done'))).toBe('done')
  })

  it('rejects at the deadline, aborting the work’s signal, when the work never settles', async () => {
    let aborted = false
    const started = Date.now()
    await expect(
      withDeadline(100, (signal) => {
        signal.addEventListener('abort', () => (aborted = true))
        return new Promise<never>(() => undefined)
      }),
    ).rejects.toThrow('no answer within 100 ms')
    expect(aborted).toBe(true)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('keeps a process alive until the deadline, so a hung request cannot end it with exit code 13', () => {
    // Inside the checkout (.tmp/ is ignored), so the bundle's packages resolve from node_modules.
    mkdirSync(join(root, '.tmp'), { recursive: true })
    const dir = mkdtempSync(join(root, '.tmp', 'deadline-'))
    try {
      buildSync({
        entryPoints: [join(root, 'src/http/daemonClient.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        packages: 'external',
        outfile: join(dir, 'daemonClient.mjs'),
        logLevel: 'silent',
      })
      // A top-level await on work that never settles and holds no handle of its own.
      writeFileSync(
        join(dir, 'main.mjs'),
        [
          "import { withDeadline } from './daemonClient.mjs'",
          'try { await withDeadline(200, () => new Promise(() => {})) } catch (error) { console.log(error.message) }',
        ].join('\n'),
      )
      const run = spawnSync(process.execPath, [join(dir, 'main.mjs')], {
        cwd: root,
        encoding: 'utf8',
        timeout: 20_000,
      })
      expect(run.stdout.trim()).toBe('no answer within 200 ms')
      expect(run.status).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

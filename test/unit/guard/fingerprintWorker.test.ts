import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFlowGuard, type FlowMatch } from '../../../src/guard/flowGuard'
import { startFingerprintWorker, type FingerprintAnswer } from '../../../src/guard/fingerprintWorkerClient'
import { fingerprintResult } from '../../../src/guard/sourceUnits'

const A = 'http://127.0.0.1:4001'
const B = 'http://127.0.0.1:4002'
const TOKEN = 'sk_live_9fQ2xT7bLm4Rz8WkP3vN'
const EMAIL = 'jane.doe@corp.example'
const CARD = '4111 1111 1111 1234'
const PARAGRAPH =
  'The quarterly revenue of the northern division grew by eleven percent while the costs of ' +
  'shipping fell sharply after the new warehouse near the harbour opened in the spring.'
const PAGE_A = `- text: key ${TOKEN}\n- text: ${EMAIL}\n- text: card ${CARD}\n- paragraph: ${PARAGRAPH}`
/** A capture's shape: many short strings, and one long one. */
const CAPTURE_A = {
  requests: Array.from({ length: 300 }, (_, i) => ({
    url: `${A}/api/item/${i}?q=${i % 7 === 0 ? EMAIL : 'x'}`,
    headers: { 'x-id': `id-${i}-${TOKEN}`, 'x-n': `${4_000_000_000 + i}` },
  })),
  body: PARAGRAPH.repeat(10),
}

// The worker as the build ships it: bundled from the sources into a file of its own.
let dir: string
let workerFile: URL
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-guard-worker-'))
  const outfile = join(dir, 'guardWorker.mjs')
  await build({
    entryPoints: [join(__dirname, '../../../src/guard/fingerprintWorker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  })
  workerFile = pathToFileURL(outfile)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Until `done()` holds, looking every few ms (no fixed wait: the machine may be slow). */
async function until(done: () => boolean, limitMs = 60_000): Promise<void> {
  const started = Date.now()
  while (!done()) {
    if (Date.now() - started > limitMs) throw new Error('gave up waiting')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const kindsOf = (matches: FlowMatch[]) => matches.map((m) => `${m.kind} ${m.source}`).sort()

describe('the fingerprint worker', () => {
  it("answers with the fingerprints this thread takes, hashed with this thread's key", async () => {
    for (const output of [PAGE_A, CAPTURE_A]) {
      const answers: FingerprintAnswer[] = []
      const worker = startFingerprintWorker(
        workerFile,
        (answer) => answers.push(answer),
        () => undefined,
      )!
      // A string goes as it is; anything else as its JSON text (the text the client was handed).
      const sent = typeof output === 'string' ? { text: output } : { json: JSON.stringify(output) }
      worker.post({ id: 7, output: sent, budget: Infinity, scope: 'agent' })
      await until(() => answers.length > 0)
      await worker.close()
      const here = fingerprintResult(output, Infinity)
      expect(answers[0]!.id).toBe(7)
      expect([...answers[0]!.hashes]).toEqual([...here.hashes])
      expect([...answers[0]!.kinds]).toEqual([...here.kinds])
      expect([...answers[0]!.pieces]).toEqual([...here.pieces])
      expect(here.hashes.length).toBeGreaterThan(10)
    }
  })

  it("fills the guard's memory off this thread: a later sink call finds each kind from its origin", async () => {
    const guard = createFlowGuard({ workerFile })
    guard.recordSource('agent', [A], PAGE_A)
    guard.recordSource('agent', [A], CAPTURE_A)
    await until(() => !guard.busy)
    expect(kindsOf(guard.matchSink('agent', { text: `${TOKEN} ${EMAIL} ${CARD} ${PARAGRAPH}` }))).toEqual([
      `email ${A}`,
      `number ${A}`,
      `text ${A}`,
      `token ${A}`,
    ])
    expect(guard.matchSink('other', { text: TOKEN })).toEqual([])
    expect(guard.matchSink('agent', { text: 'nothing read before, nothing handed out' })).toEqual([])
    await guard.close()
  })

  it('never lets a sink call run before what the client was handed is in the memory: it takes it at once', async () => {
    const guard = createFlowGuard({ workerFile })
    guard.recordSource('agent', [A], PAGE_A)
    // No turn of the event loop between: neither a slice nor the worker had it yet.
    expect(kindsOf(guard.matchSink('agent', { url: `${B}/?k=${TOKEN}` }))).toEqual([`token ${A}`])
    expect(guard.busy).toBe(false)
    // Handed to the worker, then matched whether its answer was read, is waiting on the channel, or
    // is still to come: each way, what the client was handed is found.
    guard.recordSource('agent', [A], CAPTURE_A)
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(kindsOf(guard.matchSink('agent', { text: `mail ${EMAIL}` }))).toEqual([`email ${A}`])
    expect(guard.busy).toBe(false)
    await until(() => !guard.busy)
    await guard.close()
  })

  it('takes a result read again only once, and again in full once the memory forgot it', async () => {
    let now = 0
    const guard = createFlowGuard({ workerFile, keepMs: 60_000, now: () => now })
    guard.recordSource('agent', [A], PAGE_A)
    await until(() => !guard.busy)
    guard.recordSource('agent', [A], PAGE_A)
    await until(() => !guard.busy)
    expect(kindsOf(guard.matchSink('agent', { text: TOKEN }))).toEqual([`token ${A}`])
    // Past the time to keep: the memory holds nothing; the worker, which took this page before,
    // skips it, and is asked for it again in full.
    now += 120_000
    expect(guard.matchSink('agent', { text: TOKEN })).toEqual([])
    guard.recordSource('agent', [A], PAGE_A)
    await until(() => !guard.busy)
    expect(kindsOf(guard.matchSink('agent', { text: `${TOKEN} ${EMAIL}` }))).toEqual([
      `email ${A}`,
      `token ${A}`,
    ])
    await guard.close()
  })

  it("gives way to the daemon's calls: takes a result once none has run for a moment, never past its bound, and a sink call still finds it", async () => {
    const guard = createFlowGuard({ workerFile, callQuietMs: 20, callHoldMs: 120_000 })
    // A warm worker: a result with no call running is taken at once.
    guard.recordSource('agent', [A], PAGE_A)
    await until(() => !guard.busy)
    const ended = guard.callStarted()
    guard.recordSource('agent', [A], CAPTURE_A)
    // While the call runs, the worker holds it (a warm worker takes a capture in well under this).
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(guard.busy).toBe(true)
    ended()
    ended()
    await until(() => !guard.busy)
    expect(kindsOf(guard.matchSink('agent', { text: `mail ${EMAIL}` }))).toEqual([`email ${A}`])
    // A sink call while calls run and the worker holds a result: taken here, at once.
    guard.callStarted()
    guard.recordSource('other', [B], PAGE_A)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(kindsOf(guard.matchSink('other', { text: TOKEN }))).toEqual([`token ${B}`])
    await guard.close()

    // Calls that never stop: each result is still taken once its bound has passed.
    const bounded = createFlowGuard({ workerFile, callQuietMs: 20, callHoldMs: 300 })
    bounded.callStarted()
    bounded.recordSource('agent', [A], PAGE_A)
    await until(() => !bounded.busy)
    expect(kindsOf(bounded.matchSink('agent', { text: TOKEN }))).toEqual([`token ${A}`])
    await bounded.close()
  })

  it('goes on, on this thread, once the worker is stopped', async () => {
    const guard = createFlowGuard({ workerFile })
    await guard.close()
    guard.recordSource('agent', [A], PAGE_A)
    await until(() => !guard.busy)
    expect(kindsOf(guard.matchSink('agent', { text: EMAIL }))).toEqual([`email ${A}`])
  })
})

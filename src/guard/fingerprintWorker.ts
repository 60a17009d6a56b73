/**
 * The data-flow guard's worker thread (dist/guardWorker.js): takes a result handed out, answers with
 * its fingerprints as numbers (./sourceUnits.ts fingerprintResult), its buffers transferred. It runs
 * at the lowest priority (nice 19, this thread only): the daemon's thread answering calls, and the
 * clients reading the answers, come first. The memory stays on the daemon's thread (./flowGuard.ts).
 */
import { setPriority } from 'node:os'
import { performance } from 'node:perf_hooks'
import { workerData, type MessagePort } from 'node:worker_threads'
import { useHashKey } from './fingerprints'
import { fingerprintResult } from './sourceUnits'

/**
 * A result to fingerprint: its id, the result as handed out (a string as it is, anything else as its
 * JSON text, parsed here: a flat string costs the daemon's thread a copy, an object a walk), how many
 * characters of it count, and whose it is (a client and the origins: pieces this worker took for the
 * same are not taken again, unless `again`).
 */
export interface FingerprintRequest {
  id: number
  output: { text: string } | { json: string }
  budget: number
  scope: string
  again?: boolean
}

/**
 * The daemon's calls, shared with its thread: `counter[0]` is how many run now, `counter[1]` how many
 * started so far (the daemon notifies each change). The worker takes a result once no call has run for
 * `quietMs` (a call's answer, and the browser's work for it, come first; an agent's next call usually
 * comes after a model's turn, seconds later), but never holds one longer than `holdMs` in all: results
 * read back to back are still taken, between calls or beside them.
 */
export interface CallsInFlight {
  counter: Int32Array<SharedArrayBuffer>
  quietMs: number
  holdMs: number
}

/** How many calls had started when the worker last saw the daemon quiet (none since: still quiet). */
let quietAfter = -1

/** Until no call has run for `quietMs` (at once when none started since the last quiet), or `holdMs` has passed since `from`. */
function waitForQuiet({ counter, quietMs, holdMs }: CallsInFlight, from: number): void {
  for (;;) {
    const running = Atomics.load(counter, 0)
    const started = Atomics.load(counter, 1)
    if (running === 0 && started === quietAfter) return
    const left = from + holdMs - performance.now()
    if (left <= 0) return
    if (running > 0) Atomics.wait(counter, 0, running, left)
    else if (Atomics.wait(counter, 0, 0, Math.min(quietMs, left)) === 'timed-out') quietAfter = started
  }
}

/**
 * Whole hashes of the pieces taken per scope: a hint only (the daemon's memory decides what it
 * holds; a piece it no longer holds is asked for again). Bounded: a full set starts over.
 */
const taken = new Map<string, Set<number>>()
const MAX_TAKEN = 200_000

try {
  // Linux sets a thread's own niceness with the process call for "this one" (0).
  setPriority(19)
} catch {
  // Not allowed here: it runs at the daemon's priority.
}

const { port, key, calls } = workerData as { port: MessagePort; key: Uint8Array; calls?: CallsInFlight }
// The daemon's key: hashes taken here are compared with hashes taken there.
useHashKey(key)
port.on('message', ({ id, output, budget, scope, again }: FingerprintRequest) => {
  const from = performance.now()
  if (calls) waitForQuiet(calls, from)
  let seen = taken.get(scope)
  if (!seen || seen.size > MAX_TAKEN) taken.set(scope, (seen = new Set()))
  const result: unknown = 'text' in output ? output.text : JSON.parse(output.json)
  // Between pieces, a call that started meanwhile goes first (within the same bound).
  const giveWay = calls && (() => Atomics.load(calls.counter, 0) > 0 && waitForQuiet(calls, from))
  const found = fingerprintResult(
    result,
    budget,
    (whole) => {
      if (!again && seen.has(whole)) return true
      seen.add(whole)
      return false
    },
    giveWay,
  )
  port.postMessage({ id, ...found }, [found.hashes.buffer, found.kinds.buffer, found.pieces.buffer])
})

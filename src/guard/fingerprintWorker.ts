/**
 * The data-flow guard's worker thread (dist/guardWorker.js): takes a result handed out, answers with
 * its fingerprints as numbers (./sourceUnits.ts fingerprintResult), its buffers transferred. It runs
 * at the lowest priority (nice 19, this thread only): the daemon's thread answering calls, and the
 * clients reading the answers, come first. The memory stays on the daemon's thread (./flowGuard.ts).
 */
import { setPriority } from 'node:os'
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

const { port, key } = workerData as { port: MessagePort; key: Uint8Array }
// The daemon's key: hashes taken here are compared with hashes taken there.
useHashKey(key)
port.on('message', ({ id, output, budget, scope, again }: FingerprintRequest) => {
  let seen = taken.get(scope)
  if (!seen || seen.size > MAX_TAKEN) taken.set(scope, (seen = new Set()))
  const result: unknown = 'text' in output ? output.text : JSON.parse(output.json)
  const found = fingerprintResult(result, budget, (whole) => {
    if (!again && seen.has(whole)) return true
    seen.add(whole)
    return false
  })
  port.postMessage({ id, ...found }, [found.hashes.buffer, found.kinds.buffer, found.pieces.buffer])
})

/**
 * The daemon's side of the fingerprint worker (./fingerprintWorker.ts): one thread, results sent to it
 * on a channel of their own, its answers read as they come or, when a match needs them at once, taken
 * from the channel without waiting for the event loop. Neither the thread nor the channel keeps the
 * daemon alive; the daemon's stop ends the thread.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
import { hashKey } from './fingerprints'
import type { CallsInFlight, FingerprintRequest } from './fingerprintWorker'
import type { ResultFingerprints } from './sourceUnits'

export interface FingerprintAnswer extends ResultFingerprints {
  id: number
}

export interface FingerprintWorker {
  /** Whether it still takes results (false once it failed or was closed). */
  readonly alive: boolean
  post(request: FingerprintRequest): void
  /** Every answer already sent, handed to `onAnswer` now. */
  receive(): void
  close(): Promise<void>
}

/**
 * Starts the worker from its file; undefined when there is no such file (the sources run as they are).
 * `calls` is the daemon's count of calls in flight (./fingerprintWorker.ts CallsInFlight): the worker
 * takes a result once no call has run for a moment.
 */
export function startFingerprintWorker(
  file: URL,
  onAnswer: (answer: FingerprintAnswer) => void,
  onGone: () => void,
  calls?: CallsInFlight,
): FingerprintWorker | undefined {
  if (!existsSync(fileURLToPath(file))) return undefined
  const { port1: port, port2 } = new MessageChannel()
  const worker = new Worker(file, {
    workerData: { port: port2, key: hashKey(), ...(calls ? { calls } : {}) },
    transferList: [port2],
  })
  let alive = true
  const gone = () => {
    if (!alive) return
    alive = false
    port.close()
    onGone()
  }
  worker.on('error', gone)
  worker.on('exit', gone)
  port.on('message', onAnswer)
  worker.unref()
  port.unref()
  return {
    get alive() {
      return alive
    },
    post(request) {
      port.postMessage(request)
    },
    receive() {
      if (!alive) return
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port))
        onAnswer(m.message as FingerprintAnswer)
    },
    async close() {
      alive = false
      port.close()
      await worker.terminate()
    },
  }
}

/**
 * The data-flow guard's memory and matching, per MCP client: `recordSource` after a result leaves
 * (what the client was handed, from which origins), `matchSink` before a call that carries data to
 * an origin (what of it the client was handed before, from where), `flowsInto` the flows that cross
 * origins. Values never stay: only hashes (./fingerprints.ts) and, for a match, a masked form of the
 * sink's own argument for the question put to the user.
 */
import { performance } from 'node:perf_hooks'
import { decodedForms } from './encodings'
import { hashWhole, scanText, sourceFingerprints, TEXT_MIN_HITS, type FingerprintKind } from './fingerprints'
import type { CallsInFlight } from './fingerprintWorker'
import { startFingerprintWorker, type FingerprintWorker } from './fingerprintWorkerClient'
import { jsonTextOf } from '../protocol/jsonText'
import { FlowMemory } from './flowMemory'
import { KINDS, SourceUnits, stringsOf, type ResultFingerprints } from './sourceUnits'

export { StringWalk, stringsOf } from './sourceUnits'

/** A value of the sink's arguments that the client was handed from `source` before. */
export interface FlowMatch {
  source: string
  kind: FingerprintKind
  /** The value as the user may see it: `j***@corp.example`, `sk_l*** (32 characters)`. */
  masked: string
}

/** A match that crosses origins: from where it was read to where it would go. */
export interface Flow extends FlowMatch {
  sink: string
}

export interface FlowGuardOptions {
  /** How long fingerprints are kept (default 30 minutes). */
  keepMs?: number
  /** Most hashes kept per client (default 400 000, about 20 MB of results' text). */
  maxEntries?: number
  /** Most characters of one result fingerprinted (default 4 MB); the rest is not remembered. */
  maxSourceChars?: number
  /** Most characters of one call's arguments matched (default 1 MB). */
  maxSinkChars?: number
  /** Longest stretch (ms) of fingerprinting between the daemon's other work (default 2). */
  sliceMs?: number
  /** Longest wait (ms) for a quiet turn before a slice runs anyway (default 250). */
  quietWaitMs?: number
  /**
   * The worker's file (dist/guardWorker.js): results are fingerprinted there, off this thread. None,
   * or a file that is not there (the sources under test): on this thread, in slices.
   */
  workerFile?: URL
  /**
   * The worker takes a result once no call has run for this long (default 20 ms), holding each for at
   * most `callHoldMs` (default 2000) while calls run back to back (./fingerprintWorker.ts).
   */
  callQuietMs?: number
  callHoldMs?: number
  /** Runs the next slice later (default: a timer of 1 ms that keeps no process alive); tests slow it down. */
  defer?: (slice: () => void) => void
  now?: () => number
}

export const FLOW_KEEP_MS = 30 * 60_000
/** Above this share of time busy since the last look, the event loop is not quiet. */
const BUSY_UTILIZATION = 0.5
const CLOCK_EVERY_CHARS = 16 * 1024
/** A result handed out whose fingerprints are being taken. */
interface Job {
  id: number
  client: string
  origins: readonly string[]
  output: unknown
  budget: number
  /** Its pieces, as far as this thread has taken them. */
  units: SourceUnits
  /** Handed to the worker, whose answer is awaited. */
  sent: boolean
  /** The worker is to take every piece, even one it took before (the memory no longer holds it). */
  again?: boolean
  add?: (kind: FingerprintKind, hash: number) => void
}
const MAX_WAITING_RESULTS = 16
/** The kinds matched exactly, in the order a sink's matches name them. */
const EXACT_KINDS: readonly FingerprintKind[] = ['token', 'email', 'number']
const isImage = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'image'

/** The value a user may see of a matched argument: enough to recognise it, never the secret. */
export function maskValue(kind: FingerprintKind, value: string): string {
  if (kind === 'email') {
    const at = value.lastIndexOf('@')
    return `${value.slice(0, 1)}***${value.slice(at)}`
  }
  if (kind === 'number') {
    const digits = value.replace(/\D/g, '')
    return `***${digits.slice(-4)} (${digits.length} digits)`
  }
  if (kind === 'token') return `${value.slice(0, 4)}*** (${value.length} characters)`
  const words = value.split(/\s+/).filter(Boolean)
  return `"${words.slice(0, 3).join(' ')} …" (${words.length} words of text)`
}

export function createFlowGuard(options: FlowGuardOptions = {}) {
  const limits = {
    keepMs: options.keepMs ?? FLOW_KEEP_MS,
    maxEntries: options.maxEntries ?? 400_000,
    ...(options.now ? { now: options.now } : {}),
  }
  const maxSourceChars = options.maxSourceChars ?? 4 * 1024 * 1024
  const maxSinkChars = options.maxSinkChars ?? 1024 * 1024
  const sliceMs = options.sliceMs ?? 2
  const quietWaitMs = options.quietWaitMs ?? 250
  const defer = options.defer ?? ((next: () => void) => void setTimeout(next, 1).unref())
  const memories = new Map<string, FlowMemory>()
  /**
   * Results handed out whose fingerprints are not all in the memory yet, oldest first: taken off the
   * answer's path (by the worker, or a slice at a time between the daemon's other work), or all at
   * once on this thread at the client's next match.
   */
  const pending: Job[] = []
  let scheduled = false
  let nextId = 1
  /**
   * The worker, started with the first result to fingerprint (not at the daemon's start: a daemon no
   * page result reaches never pays for a thread); none once it was closed.
   */
  let worker: FingerprintWorker | undefined
  let workerStarted = false
  /** Calls in flight, shared with the worker: it gives way to them. */
  const calls: CallsInFlight = {
    counter: new Int32Array(new SharedArrayBuffer(8)),
    quietMs: options.callQuietMs ?? 20,
    holdMs: options.callHoldMs ?? 2000,
  }
  const callsChanged = (by: number): void => {
    Atomics.add(calls.counter, 0, by)
    if (by > 0) Atomics.add(calls.counter, 1, 1)
    Atomics.notify(calls.counter, 0)
  }
  const startedWorker = (): FingerprintWorker | undefined => {
    if (workerStarted) return worker
    workerStarted = true
    worker = options.workerFile
      ? startFingerprintWorker(
          options.workerFile,
          (answer) => {
            const at = pending.findIndex((job) => job.id === answer.id)
            // A job a match took meanwhile, or a client forgotten: its answer has no use.
            if (at === -1) return
            const job = pending[at]!
            if (keep(job, answer)) pending.splice(at, 1)
            else {
              job.sent = false
              job.again = true
              schedule(true)
            }
          },
          () => {
            // The worker is gone: what it had is taken here.
            for (const job of pending) job.sent = false
            schedule(true)
          },
          calls,
        )
      : undefined
    return worker
  }

  const memoryOf = (client: string): FlowMemory => {
    let memory = memories.get(client)
    if (!memory) memories.set(client, (memory = new FlowMemory(limits)))
    return memory
  }

  /**
   * Fingerprints one piece of a result, or only hashes it when the same piece from these origins is
   * remembered in the current generation already (a page or a capture read again leaves nothing new).
   */
  const fingerprint = (memory: FlowMemory, job: Job, piece: string | readonly string[]): void => {
    const whole = hashWhole(piece)
    if (memory.hasWhole(whole, job.origins)) return
    const rotations = memory.rotations
    // A chunk's texts each on their own, as they were handed out (no text across two of them).
    if (typeof piece === 'string') sourceFingerprints(piece, job.add!)
    else for (const text of piece) sourceFingerprints(text, job.add!)
    // Across a turn of the generations some fingerprints went to the older one: not marked whole.
    if (memory.rotations === rotations) memory.addWhole(whole, job.origins)
  }

  /** Takes one pending result's fingerprints here until `deadline` (ms, performance.now); true once it is done. */
  const work = (job: Job, deadline = Infinity): boolean => {
    const memory = memoryOf(job.client)
    job.add = memory.adder(job.origins)
    const { units } = job
    for (let piece = units.next(); piece !== undefined; piece = units.next()) {
      fingerprint(memory, job, piece)
      // The clock is read every few thousand characters, not for each of a capture's short strings.
      if (units.chars >= CLOCK_EVERY_CHARS) {
        units.chars = 0
        if (performance.now() >= deadline) return false
      }
    }
    return true
  }

  /**
   * The worker's fingerprints of a result into the memory, less the pieces remembered already. False
   * when the worker skipped a piece as taken before that the memory no longer holds (its generation
   * turned): the result is asked for again, whole.
   */
  const keep = (job: Job, found: ResultFingerprints): boolean => {
    const memory = memoryOf(job.client)
    const add = memory.adder(job.origins)
    const { hashes, kinds, pieces } = found
    let complete = true
    let at = 0
    for (let p = 0; p < pieces.length; p += 3) {
      const whole = pieces[p]!
      const end = pieces[p + 1]!
      if (!memory.hasWhole(whole, job.origins))
        if (pieces[p + 2] === 1) complete = false
        else {
          const rotations = memory.rotations
          for (let i = at; i < end; i++) add(KINDS[kinds[i]!]!, hashes[i]!)
          if (memory.rotations === rotations) memory.addWhole(whole, job.origins)
        }
      at = end
    }
    return complete
  }

  /** Every pending result of this client in the memory, now, in the order they were handed out. */
  const take = (client: string): void => {
    // Nothing of this client's is out: nothing to wait for (the common sink call).
    if (!pending.some((job) => job.client === client)) return
    // Answers the worker has sent already are kept first; what it has not answered is taken here.
    worker?.receive()
    for (let i = 0; i < pending.length;)
      if (pending[i]!.client === client) {
        work(pending[i]!)
        pending.splice(i, 1)
      } else i++
  }

  /** Results waiting for this thread: not with the worker. */
  const waiting = (): number => {
    let count = 0
    for (const job of pending) if (!job.sent) count++
    return count
  }

  /**
   * One slice of the pending work, on a quiet turn of the event loop: while the daemon is busy (it
   * answers a call) the work waits, for at most `quietWaitMs`, so it never stands in a call's way.
   * With a worker, a slice hands it results (copying one costs this thread a pass over it); without,
   * or when the worker holds too many, a slice fingerprints here.
   */
  let loop = performance.eventLoopUtilization()
  let waitingSince = 0
  const slice = (): void => {
    scheduled = false
    const now = performance.now()
    const busy = performance.eventLoopUtilization(loop).utilization > BUSY_UTILIZATION
    // A backlog (a burst of large results) is worked off without waiting: what it holds is memory.
    if (busy && now - waitingSince < quietWaitMs && waiting() <= MAX_WAITING_RESULTS) {
      loop = performance.eventLoopUtilization()
      return schedule(false)
    }
    const deadline = now + sliceMs
    const worker = startedWorker()
    if (worker?.alive && pending.length - waiting() < MAX_WAITING_RESULTS) {
      for (const job of pending)
        if (!job.sent) {
          job.sent = true
          worker.post({
            id: job.id,
            output: typeof job.output === 'string' ? { text: job.output } : { json: jsonTextOf(job.output) },
            budget: job.budget,
            scope: `${job.client}\n${job.origins.join('\n')}`,
            ...(job.again ? { again: true } : {}),
          })
          if (performance.now() >= deadline) break
        }
    } else
      for (let i = 0; i < pending.length;) {
        const job = pending[i]!
        if (job.sent) i++
        else if (work(job, deadline)) pending.splice(i, 1)
        else break
      }
    loop = performance.eventLoopUtilization()
    schedule(true)
  }
  const schedule = (fresh: boolean): void => {
    if (scheduled || !waiting()) return
    scheduled = true
    if (fresh) waitingSince = performance.now()
    defer(slice)
  }

  return {
    /**
     * Remembers what a client was handed, from these origins. The work happens after the answer has
     * left, in the worker or in slices, or at the client's next match, whichever comes first.
     */
    recordSource(client: string, origins: readonly string[], output: unknown, handedChars = Infinity): void {
      if (origins.length === 0 || output === undefined || output === null || isImage(output)) return
      // A result cut to the size cap: its strings as far as the text the client got reached.
      const budget = Math.min(maxSourceChars, handedChars)
      pending.push({
        id: nextId++,
        client,
        origins,
        output,
        budget,
        units: new SourceUnits(output, budget),
        sent: false,
      })
      schedule(true)
    },

    /**
     * A call started (the call runner, for every call of either revision); the function returned says
     * it ended. The worker's fingerprints wait while calls run (within a bound).
     */
    callStarted(): () => void {
      callsChanged(1)
      let ended = false
      return () => {
        if (ended) return
        ended = true
        callsChanged(-1)
      }
    },

    /** Takes every pending result now (tests, benchmarks). */
    settle(): void {
      worker?.receive()
      while (pending.length) work(pending.shift()!)
    },

    /** Whether some result's fingerprints are still being taken (benchmarks). */
    get busy(): boolean {
      return pending.length > 0
    },

    /** Stops the worker (the daemon's stop); what is pending is taken here from then on. */
    async close(): Promise<void> {
      workerStarted = true
      await worker?.close()
    },

    /** Which values of these arguments the client was handed before, and from where (any origin). */
    matchSink(client: string, input: unknown): FlowMatch[] {
      take(client)
      const memory = memories.get(client)
      if (!memory || memory.size === 0) return []
      const matches = new Map<string, FlowMatch>()
      const found = (source: string, kind: FingerprintKind, value: string) => {
        const key = `${kind} ${source}`
        if (!matches.has(key)) matches.set(key, { source, kind, masked: maskValue(kind, value) })
      }
      for (const text of stringsOf(input, maxSinkChars))
        for (const form of decodedForms(text)) {
          // Exact features by kind (tokens, addresses, numbers), each kind in the order found.
          const exact: Array<{ kind: FingerprintKind; hash: number; from: number; to: number }> = []
          const hits = new Map<string, { hashes: Set<number>; from: number; to: number }>()
          scanText(
            form,
            (kind, hash, from, to) => exact.push({ kind, hash, from, to }),
            (hash, from, to) => {
              for (const source of memory.originsOf('text', hash)) {
                const hit = hits.get(source)
                if (hit) {
                  hit.hashes.add(hash)
                  hit.to = to
                } else hits.set(source, { hashes: new Set([hash]), from, to })
              }
            },
          )
          for (const kind of EXACT_KINDS)
            for (const feature of exact)
              if (feature.kind === kind)
                for (const source of memory.originsOf(kind, feature.hash))
                  found(source, kind, form.slice(feature.from, feature.to))
          for (const [source, hit] of hits)
            if (hit.hashes.size >= TEXT_MIN_HITS) found(source, 'text', form.slice(hit.from, hit.to))
        }
      return [...matches.values()]
    },

    /** Drops a client's fingerprints (its removal). */
    forget(client: string): void {
      memories.delete(client)
      for (let i = pending.length - 1; i >= 0; i--) if (pending[i]!.client === client) pending.splice(i, 1)
    },
  }
}

export type FlowGuard = ReturnType<typeof createFlowGuard>

/** The matches that would leave their origin for one of `sinks`; same-origin flows are no flows. */
export function flowsInto(matches: readonly FlowMatch[], sinks: readonly string[]): Flow[] {
  const flows: Flow[] = []
  for (const match of matches)
    for (const sink of sinks) if (sink !== match.source) flows.push({ ...match, sink })
  return flows
}

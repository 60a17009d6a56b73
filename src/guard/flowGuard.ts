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
import { FlowMemory } from './flowMemory'

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
  /** Runs the next slice later (default: a timer of 1 ms that keeps no process alive); tests slow it down. */
  defer?: (slice: () => void) => void
  now?: () => number
}

export const FLOW_KEEP_MS = 30 * 60_000
/** Above this share of time busy since the last look, the event loop is not quiet. */
const BUSY_UTILIZATION = 0.5
const CLOCK_EVERY_CHARS = 16 * 1024
/**
 * Texts are remembered whole in pieces of about this many characters (a long one alone, short ones
 * together), so a piece handed out again is hashed, not scanned again.
 */
const CHUNK_CHARS = 512
const MAX_CHUNK_CHARS = 4096
/** Fewest characters that can hold a feature (a number's digits): shorter texts leave nothing. */
const MIN_FEATURE_CHARS = 9
/** About one text in four ends a chunk once it is long enough, by the text's own characters. */
const endsChunk = (text: string): boolean =>
  ((text.length * 31 + text.charCodeAt(0) * 7 + text.charCodeAt(text.length - 1)) & 3) === 0

/** A result handed out whose fingerprints are being taken: its walk and the chunk of short texts so far. */
interface Job {
  client: string
  origins: readonly string[]
  walk: StringWalk
  chunk: string[]
  chunkChars: number
  add?: (kind: FingerprintKind, hash: number) => void
}
const MAX_WAITING_RESULTS = 16
/** The kinds matched exactly, in the order a sink's matches name them. */
const EXACT_KINDS: readonly FingerprintKind[] = ['token', 'email', 'number']
const MAX_DEPTH = 64
const HANDLE_KEY = /^(tab|window|group|frame|download)Ids?$/
const isHandle = (value: unknown): boolean =>
  typeof value === 'number' || (Array.isArray(value) && value.every((v) => typeof v === 'number'))

/**
 * The strings of a JSON value (keys aside), depth-first in the order JSON.stringify writes them,
 * until `budget` characters are taken; one at a time, so a long walk can stop and go on later.
 */
export class StringWalk {
  private readonly values: unknown[] = []
  private readonly depths: number[] = []
  private left: number

  constructor(value: unknown, budget: number) {
    this.values.push(value)
    this.depths.push(0)
    this.left = budget
  }

  /** The next string; undefined when there is none or the budget is spent. */
  next(): string | undefined {
    const { values, depths } = this
    while (values.length && this.left > 0) {
      const value = values.pop()
      const depth = depths.pop()!
      if (typeof value === 'string') {
        const taken = value.length > this.left ? value.slice(0, this.left) : value
        this.left -= taken.length
        return taken
      }
      // A long number sent as a JSON number is still the number.
      if (typeof value === 'number') {
        if (Number.isInteger(value) && Math.abs(value) >= 1e8) return String(value)
        continue
      }
      if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) continue
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          values.push(value[i])
          depths.push(depth + 1)
        }
        continue
      }
      // Browser handles (`tabId`, `windowId`, `tabIds`: numbers the browser gave out) are not data.
      const keys = Object.keys(value)
      for (let i = keys.length - 1; i >= 0; i--) {
        const next = (value as Record<string, unknown>)[keys[i]!]
        if (typeof next === 'boolean' || next === null || next === undefined) continue
        if (isHandle(next) && HANDLE_KEY.test(keys[i]!)) continue
        values.push(next)
        depths.push(depth + 1)
      }
    }
    return undefined
  }
}

/** The strings in a JSON value (keys aside), depth-first, until `budget` characters are taken. */
export function stringsOf(value: unknown, budget: number): string[] {
  const found: string[] = []
  const walk = new StringWalk(value, budget)
  for (let text = walk.next(); text !== undefined; text = walk.next()) found.push(text)
  return found
}

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
   * Results handed out whose fingerprints are not all taken yet, oldest first: taken off the answer's
   * path, a slice at a time between the daemon's other work, or all at once at the client's next match.
   */
  const pending: Job[] = []
  let scheduled = false

  const memoryOf = (client: string): FlowMemory => {
    let memory = memories.get(client)
    if (!memory) memories.set(client, (memory = new FlowMemory(limits)))
    return memory
  }

  /**
   * Fingerprints one text of a result, or only hashes it when the same text from these origins is
   * remembered in the current generation already (a page or a capture read again leaves nothing new).
   */
  const fingerprint = (memory: FlowMemory, job: Job, text: string | readonly string[]): void => {
    const whole = hashWhole(text)
    if (memory.hasWhole(whole, job.origins)) return
    const rotations = memory.rotations
    // A chunk's texts each on their own, as they were handed out (no text across two of them).
    if (typeof text === 'string') sourceFingerprints(text, job.add!)
    else for (const line of text) sourceFingerprints(line, job.add!)
    // Across a turn of the generations some fingerprints went to the older one: not marked whole.
    if (memory.rotations === rotations) memory.addWhole(whole, job.origins)
  }

  /** Takes one pending result's fingerprints until `deadline` (ms, performance.now); true once it is done. */
  const work = (job: Job, deadline = Infinity): boolean => {
    const memory = memoryOf(job.client)
    job.add = memory.adder(job.origins)
    let chars = 0
    for (let text = job.walk.next(); text !== undefined; text = job.walk.next()) {
      chars += text.length
      if (text.length >= CHUNK_CHARS) fingerprint(memory, job, text)
      else if (text.length >= MIN_FEATURE_CHARS) {
        // Short texts (a capture's URLs and headers) go in chunks, remembered whole as their lines
        // joined. A chunk ends after a text chosen by its content, so the same texts make the same
        // chunks even after something new came before them.
        job.chunk.push(text)
        job.chunkChars += text.length + 1
        if (job.chunkChars >= CHUNK_CHARS && (endsChunk(text) || job.chunkChars >= MAX_CHUNK_CHARS)) {
          fingerprint(memory, job, job.chunk)
          job.chunk.length = 0
          job.chunkChars = 0
        }
      }
      // The clock is read every few thousand characters, not for each of a capture's short strings.
      if (chars >= CLOCK_EVERY_CHARS) {
        chars = 0
        if (performance.now() >= deadline) return false
      }
    }
    if (job.chunk.length) fingerprint(memory, job, job.chunk)
    job.chunk.length = 0
    return true
  }

  /** Every pending result of this client, now, in the order they were handed out. */
  const take = (client: string): void => {
    for (let i = 0; i < pending.length;)
      if (pending[i]!.client === client) {
        work(pending[i]!)
        pending.splice(i, 1)
      } else i++
  }

  /**
   * One slice of the pending work, on a quiet turn of the event loop: while the daemon is busy (it
   * answers a call) the work waits, for at most `quietWaitMs`, so it never stands in a call's way.
   */
  let loop = performance.eventLoopUtilization()
  let waitingSince = 0
  const slice = (): void => {
    scheduled = false
    const now = performance.now()
    const busy = performance.eventLoopUtilization(loop).utilization > BUSY_UTILIZATION
    // A backlog (a burst of large results) is worked off without waiting: what it holds is memory.
    if (busy && now - waitingSince < quietWaitMs && pending.length <= MAX_WAITING_RESULTS) {
      loop = performance.eventLoopUtilization()
      return schedule(false)
    }
    const deadline = now + sliceMs
    while (pending.length && work(pending[0]!, deadline)) pending.shift()
    loop = performance.eventLoopUtilization()
    schedule(true)
  }
  const schedule = (fresh: boolean): void => {
    if (scheduled || !pending.length) return
    scheduled = true
    if (fresh) waitingSince = performance.now()
    defer(slice)
  }

  return {
    /**
     * Remembers what a client was handed, from these origins. The work happens after the answer has
     * left, in slices, or at the client's next match, whichever comes first.
     */
    recordSource(client: string, origins: readonly string[], output: unknown, handedChars = Infinity): void {
      if (origins.length === 0 || output === undefined || output === null || isImage(output)) return
      // A result cut to the size cap: its strings as far as the text the client got reached.
      const budget = Math.min(maxSourceChars, handedChars)
      pending.push({ client, origins, walk: new StringWalk(output, budget), chunk: [], chunkChars: 0 })
      schedule(true)
    },

    /** Takes every pending result now (tests, benchmarks). */
    settle(): void {
      while (pending.length) work(pending.shift()!)
    },

    /** Whether some result's fingerprints are still being taken (benchmarks). */
    get busy(): boolean {
      return pending.length > 0
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

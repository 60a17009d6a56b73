/**
 * The data-flow guard's memory and matching, per MCP client: `recordSource` after a result leaves
 * (what the client was handed, from which origins), `matchSink` before a call that carries data to
 * an origin (what of it the client was handed before, from where), `flowsInto` the flows that cross
 * origins. Values never stay: only hashes (./fingerprints.ts) and, for a match, a masked form of the
 * sink's own argument for the question put to the user.
 */
import { decodedForms } from './encodings'
import {
  scanEmails,
  scanNumbers,
  scanShingles,
  scanTokens,
  sourceFingerprints,
  TEXT_MIN_HITS,
  type Emit,
  type FingerprintKind,
} from './fingerprints'
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
  now?: () => number
}

export const FLOW_KEEP_MS = 30 * 60_000
const MAX_DEPTH = 64
const HANDLE_KEY = /^(tab|window|group|frame|download)Ids?$/
const isHandle = (value: unknown): boolean =>
  typeof value === 'number' || (Array.isArray(value) && value.every((v) => typeof v === 'number'))

/** The strings in a JSON value (keys aside), depth-first, until `budget` characters are taken. */
export function stringsOf(value: unknown, budget: number): string[] {
  const found: string[] = []
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }]
  let left = budget
  while (stack.length && left > 0) {
    const { value: next, depth } = stack.pop()!
    if (typeof next === 'string') {
      const taken = next.length > left ? next.slice(0, left) : next
      found.push(taken)
      left -= taken.length
    } else if (typeof next === 'number' && Number.isInteger(next) && Math.abs(next) >= 1e8) {
      // A long number sent as a JSON number is still the number.
      found.push(String(next))
    } else if (next !== null && typeof next === 'object' && depth < MAX_DEPTH) {
      // Browser handles (`tabId`, `windowId`, `tabIds`: numbers the browser gave out) are not data.
      const values = Array.isArray(next)
        ? next
        : Object.entries(next as Record<string, unknown>)
            .filter(([key, v]) => !(HANDLE_KEY.test(key) && isHandle(v)))
            .map(([, v]) => v)
      for (let i = values.length - 1; i >= 0; i--) stack.push({ value: values[i], depth: depth + 1 })
    }
  }
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
  const memories = new Map<string, FlowMemory>()
  /** Results handed out whose fingerprints are not taken yet: taken off the answer's path, or at the client's next match. */
  const pending = new Map<string, Array<{ origins: readonly string[]; output: unknown }>>()
  let scheduled = false

  const memoryOf = (client: string): FlowMemory => {
    let memory = memories.get(client)
    if (!memory) memories.set(client, (memory = new FlowMemory(limits)))
    return memory
  }

  const take = (client: string): void => {
    const queue = pending.get(client)
    if (!queue) return
    pending.delete(client)
    for (const { origins, output } of queue) {
      const add = memoryOf(client).adder(origins)
      for (const text of stringsOf(output, maxSourceChars)) sourceFingerprints(text, add)
    }
  }

  const takeAll = (): void => {
    scheduled = false
    for (const client of [...pending.keys()]) take(client)
  }

  return {
    /**
     * Remembers what a client was handed, from these origins. The work happens after the answer has
     * left (on the next turn of the event loop) or at the client's next match, whichever comes first.
     */
    recordSource(client: string, origins: readonly string[], output: unknown): void {
      if (origins.length === 0 || output === undefined || output === null || isImage(output)) return
      const queue = pending.get(client)
      if (queue) queue.push({ origins, output })
      else pending.set(client, [{ origins, output }])
      if (!scheduled) {
        scheduled = true
        setImmediate(takeAll)
      }
    },

    /** Takes every pending result now (tests, benchmarks). */
    settle: takeAll,

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
          const exact: Emit = (kind, hash, from, to) => {
            for (const source of memory.originsOf(kind, hash)) found(source, kind, form.slice(from, to))
          }
          scanTokens(form, exact)
          scanEmails(form, exact)
          scanNumbers(form, exact)
          const hits = new Map<string, { hashes: Set<number>; from: number; to: number }>()
          scanShingles(form, (hash, from, to) => {
            for (const source of memory.originsOf('text', hash)) {
              const hit = hits.get(source)
              if (hit) {
                hit.hashes.add(hash)
                hit.to = to
              } else hits.set(source, { hashes: new Set([hash]), from, to })
            }
          })
          for (const [source, hit] of hits)
            if (hit.hashes.size >= TEXT_MIN_HITS) found(source, 'text', form.slice(hit.from, hit.to))
        }
      return [...matches.values()]
    },

    /** Drops a client's fingerprints (its removal). */
    forget(client: string): void {
      memories.delete(client)
      pending.delete(client)
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

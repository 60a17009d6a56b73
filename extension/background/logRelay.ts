/**
 * Plugin log entries from pages (and built-in tools), batched into `plugin.log` notifications: one
 * frame per 200 ms at most, 1000 entries per frame. Each entry is bounded before it is relayed: a
 * message of at most 2 KB (longer ones are cut and marked), data of at most 8 KB as JSON (larger data
 * is replaced by a marker), and at most 50 entries a second per plugin (the rest are counted and
 * reported in one entry), so one chatty or hostile page cannot flood the socket or the agents. The
 * plugin of an entry is the one whose channel it came through (content.js tags it), never a name the
 * page wrote.
 */
import type { LogLevel } from '../../src/protocol/messages'

export interface LogEntry {
  plugin: string
  /** The call that wrote the entry (checked by the worker: it runs in the tab the entry came from). */
  dispatchId?: string
  level: LogLevel
  message: string
  data?: unknown
  ts: number
}

const FLUSH_MS = 200
const MAX_BATCH = 1000
const MAX_QUEUE = 5000
export const MAX_LOG_MESSAGE_CHARS = 2 * 1024
export const MAX_LOG_DATA_CHARS = 8 * 1024
const RATE_WINDOW_MS = 1_000
export const MAX_LOGS_PER_SECOND = 50
const MAX_MESSAGE_CHARS = MAX_LOG_MESSAGE_CHARS
const MAX_DATA_CHARS = MAX_LOG_DATA_CHARS
const MAX_PER_WINDOW = MAX_LOGS_PER_SECOND

/** A per-key budget of `limit` events a second. */
export class RateWindow {
  private readonly windows = new Map<string, { start: number; count: number }>()
  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  allow(key: string): boolean {
    const t = this.now()
    let w = this.windows.get(key)
    if (!w || t - w.start >= RATE_WINDOW_MS) {
      w = { start: t, count: 0 }
      this.windows.set(key, w)
    }
    return w.count++ < this.limit
  }
}

export class LogRelay {
  private queue: LogEntry[] = []
  private timer: ReturnType<typeof setTimeout> | null = null
  /** Per plugin: start of the current rate window, entries in it, entries dropped in it. */
  private readonly rate = new Map<string, { start: number; count: number; dropped: number }>()

  constructor(
    private readonly send: (entries: LogEntry[]) => boolean,
    private readonly now: () => number = Date.now,
  ) {}

  add(entry: LogEntry): void {
    const t = this.now()
    let window = this.rate.get(entry.plugin)
    if (!window || t - window.start >= RATE_WINDOW_MS) {
      if (window && window.dropped > 0)
        this.enqueue({
          plugin: entry.plugin,
          level: 'warning',
          message: `${window.dropped} log entries dropped: more than ${MAX_PER_WINDOW} a second`,
          ts: t,
        })
      window = { start: t, count: 0, dropped: 0 }
      this.rate.set(entry.plugin, window)
    }
    if (window.count >= MAX_PER_WINDOW) {
      window.dropped++
      return
    }
    window.count++
    this.enqueue(entry)
  }

  private enqueue(entry: LogEntry): void {
    if (this.queue.length >= MAX_QUEUE) this.queue.shift()
    const message =
      entry.message.length > MAX_MESSAGE_CHARS
        ? `${entry.message.slice(0, MAX_MESSAGE_CHARS)}… [truncated]`
        : entry.message
    const out: LogEntry = {
      plugin: entry.plugin,
      ...(entry.dispatchId === undefined ? {} : { dispatchId: entry.dispatchId }),
      level: entry.level,
      message,
      ts: entry.ts,
    }
    if (entry.data !== undefined) {
      let text: string | undefined
      try {
        text = JSON.stringify(entry.data)
      } catch {
        text = undefined
      }
      if (text !== undefined)
        out.data =
          text.length > MAX_DATA_CHARS
            ? { truncated: true, bytes: text.length }
            : (JSON.parse(text) as unknown)
    }
    this.queue.push(out)
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS)
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    while (this.queue.length) {
      const batch = this.queue.slice(0, MAX_BATCH)
      if (!this.send(batch)) return // not connected: keep them for the next connection
      this.queue = this.queue.slice(batch.length)
    }
  }
}

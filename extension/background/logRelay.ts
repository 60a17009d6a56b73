/**
 * Plugin log entries from pages (and built-in tools), batched into `plugin.log` notifications: one
 * frame per 200 ms at most, 1000 entries per frame. Oversized data is replaced by a marker so one
 * chatty page cannot fill the socket.
 */
import type { LogLevel } from '../../src/protocol/messages'

export interface LogEntry {
  plugin: string
  level: LogLevel
  message: string
  data?: unknown
  ts: number
}

const FLUSH_MS = 200
const MAX_BATCH = 1000
const MAX_QUEUE = 5000
const MAX_MESSAGE_CHARS = 8 * 1024
const MAX_DATA_CHARS = 32 * 1024

export class LogRelay {
  private queue: LogEntry[] = []
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(private readonly send: (entries: LogEntry[]) => boolean) {}

  add(entry: LogEntry): void {
    if (this.queue.length >= MAX_QUEUE) this.queue.shift()
    const message = entry.message.length > MAX_MESSAGE_CHARS ? `${entry.message.slice(0, MAX_MESSAGE_CHARS)}… [truncated]` : entry.message
    const out: LogEntry = { plugin: entry.plugin, level: entry.level, message, ts: entry.ts }
    if (entry.data !== undefined) {
      let text: string | undefined
      try {
        text = JSON.stringify(entry.data)
      } catch {
        text = undefined
      }
      if (text !== undefined) out.data = text.length > MAX_DATA_CHARS ? { truncated: true, bytes: text.length } : (JSON.parse(text) as unknown)
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

/**
 * The extension's own recent log, read by extension_get_logs. Built-in tools write here; the rest of
 * the extension may too (`recordExtensionLog`). Entries are short and never carry secrets.
 */
import type { LogLevel } from '../../src/protocol/messages'

export interface ExtensionLogEntry {
  ts: number
  level: LogLevel
  message: string
  data?: unknown
}

const MAX_ENTRIES = 500
const MAX_MESSAGE_CHARS = 2_000
const entries: ExtensionLogEntry[] = []

export function recordExtensionLog(level: LogLevel, message: string, data?: unknown): void {
  const text =
    message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}… [truncated]` : message
  entries.push({ ts: Date.now(), level, message: text, ...(data !== undefined ? { data } : {}) })
  if (entries.length > MAX_ENTRIES) entries.splice(0, entries.length - MAX_ENTRIES)
}

export function extensionLogEntries(): readonly ExtensionLogEntry[] {
  return entries
}

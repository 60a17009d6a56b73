import type { ConsolaInstance } from 'consola'
import { log } from '../log'
import type { ClientNotifications, NotificationParams } from '../protocol'

export type PluginLogEntry = NotificationParams<typeof ClientNotifications, 'plugin.log'>['entries'][number]

/** Entries kept per plugin (the `logBufferSize` of /health counts them). */
export const PLUGIN_LOG_BUFFER_SIZE = 200
const MESSAGE_MAX_CHARS = 2000

/**
 * Plugin log entries from the extension: the last 200 per plugin in memory, and one line each in
 * server.log tagged `[plugin:<name>]` so `bridge logs --plugin <name>` finds them.
 */
export class PluginLogs {
  private readonly buffers = new Map<string, PluginLogEntry[]>()
  private readonly loggers = new Map<string, ConsolaInstance>()

  add(entries: readonly PluginLogEntry[]): void {
    for (const entry of entries) {
      const buffer = this.buffers.get(entry.plugin) ?? []
      buffer.push(entry)
      if (buffer.length > PLUGIN_LOG_BUFFER_SIZE) buffer.shift()
      this.buffers.set(entry.plugin, buffer)
      const text =
        entry.message.length > MESSAGE_MAX_CHARS
          ? `${entry.message.slice(0, MESSAGE_MAX_CHARS)}…`
          : entry.message
      const logger = this.loggerFor(entry.plugin)
      if (entry.level === 'error') logger.error(text)
      else if (entry.level === 'warning') logger.warn(text)
      else if (entry.level === 'info') logger.info(text)
      else logger.debug(text)
    }
  }

  size(plugin: string): number {
    return this.buffers.get(plugin)?.length ?? 0
  }

  entries(plugin: string): readonly PluginLogEntry[] {
    return this.buffers.get(plugin) ?? []
  }

  private loggerFor(plugin: string): ConsolaInstance {
    let logger = this.loggers.get(plugin)
    if (!logger) {
      // Plugin names come from the extension: keep the tag to what a plugin name can be.
      logger = log.withTag(`plugin:${plugin.replace(/[^a-z0-9-]/g, '').slice(0, 64) || 'unknown'}`)
      this.loggers.set(plugin, logger)
    }
    return logger
  }
}

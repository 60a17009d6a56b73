/**
 * The daemon's view of clients.json: the named MCP clients whose tokens open `/mcp`. It is re-read on
 * every reload (`bridge client remove` POSTs /reload), whenever a token is checked and the file's stat
 * changed since the last read (so a client added or removed a moment ago is known at its very next
 * request), and on a file watch, so a removed client's token stops working at once. A client that disappears, or whose token changed, is
 * reported to `onRemoved` (its open sessions must end). A broken file keeps the last good list.
 */
import { statSync, unwatchFile, watchFile, type Stats } from 'node:fs'
import { log } from '../log'
import { readClients, type ClientEntry } from './clients'

const logger = log.withTag('clients')
/** How often the file's stat is polled; a rename over it (atomic write) is seen too. */
const WATCH_INTERVAL_MS = 500

export interface ClientRegistry {
  /** The current clients (name and token), re-read first if the file changed. */
  current(): readonly ClientEntry[]
  /** Re-reads clients.json now. */
  reload(): void
  close(): void
}

export function createClientRegistry(options: {
  file: string
  onRemoved: (name: string) => void
  /** A client's scope changed (bridge client set): what it lists changed. */
  onScopeChanged?: (name: string) => void
  /** A client's approvals in the client were turned off (bridge client approvals <name> off). */
  onApprovalsOff?: (name: string) => void
  /** Each token read is handed here (log redaction). */
  onToken?: (token: string) => void
}): ClientRegistry {
  let clients: readonly ClientEntry[] = []
  let readAt = ''
  const signature = (): string => {
    try {
      const stat = statSync(options.file)
      return `${stat.ino}:${stat.mtimeMs}:${stat.size}`
    } catch {
      return 'missing'
    }
  }

  const reload = (): void => {
    readAt = signature()
    let next: ClientEntry[]
    try {
      next = readClients(options.file)
    } catch (error) {
      logger.warn(`kept the current clients: ${error instanceof Error ? error.message : String(error)}`)
      return
    }
    const previous = clients
    clients = next
    for (const client of next) options.onToken?.(client.token)
    for (const old of previous) {
      const now = next.find((c) => c.name === old.name)
      if (now?.token === old.token) {
        if (JSON.stringify(now.scope ?? {}) !== JSON.stringify(old.scope ?? {}))
          options.onScopeChanged?.(old.name)
        if (old.approvalsInClient === true && now.approvalsInClient !== true)
          options.onApprovalsOff?.(old.name)
        continue
      }
      logger.info(
        `client "${old.name}" was ${now ? 'given a new token' : 'removed'}: its old token no longer opens /mcp`,
      )
      options.onRemoved(old.name)
    }
  }

  reload()
  const onChange = (now: Stats, before: Stats): void => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) reload()
  }
  watchFile(options.file, { interval: WATCH_INTERVAL_MS, persistent: false }, onChange)
  return {
    current: () => {
      if (signature() !== readAt) reload()
      return clients
    },
    reload,
    close: () => unwatchFile(options.file, onChange),
  }
}

/**
 * The MCP client configuration bridge prints and writes: the daemon's `/mcp` URL with a named
 * client's own token (never the auth.json secret, which is the extension's and the CLI's).
 */
import { existsSync } from 'node:fs'
import { DEFAULT_CLIENT, readClients, type ClientEntry } from '../../src/config/clients'
import type { BridgePaths } from '../../src/config/paths'
import { baseUrl } from '../../src/http/daemonClient'

/** The key bridge's entry has in a client's list of MCP servers. */
export const MCP_SERVER_KEY = 'bridge'

export function mcpUrl(port: number): string {
  return `${baseUrl(port)}/mcp`
}

/** The generic configuration block (the shape most MCP clients accept). */
export function mcpClientConfig(port: number, token: string): string {
  const config = {
    mcpServers: {
      [MCP_SERVER_KEY]: { type: 'http', url: mcpUrl(port), headers: { Authorization: `Bearer ${token}` } },
    },
  }
  return JSON.stringify(config, null, 2)
}

/** The `default` client, or null when clients.json is missing or has none by that name. */
export function defaultClient(paths: BridgePaths): ClientEntry | null {
  if (!existsSync(paths.clientsFile)) return null
  return readClients(paths.clientsFile).find((c) => c.name === DEFAULT_CLIENT) ?? null
}

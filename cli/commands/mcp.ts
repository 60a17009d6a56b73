/**
 * `bridge mcp`: speaks MCP on stdin/stdout and relays it to the running daemon's `/mcp`, for MCP
 * clients that only spawn processes (`bridge client add <name> --for claude-desktop` writes this form).
 * The client's token comes from BRIDGE_CLIENT_TOKEN (never from the command line, where other users
 * could read it), the port from --port / BRIDGE_PORT / config.json. Nothing but protocol on stdout.
 */
import type { CAC } from 'cac'
import { daemonPort } from '../shared/daemonTarget'
import { baseUrl } from '../../src/http/daemonClient'
import { errorText, fail, warn } from '../shared/output'

export function registerMcp(cli: CAC): void {
  cli
    .command('mcp', 'MCP over stdin/stdout, relayed to the running daemon (token in BRIDGE_CLIENT_TOKEN)')
    .action((flags: { port?: unknown }) => mcp(flags))
}

async function mcp(flags: { port?: unknown }): Promise<void> {
  const token = process.env.BRIDGE_CLIENT_TOKEN ?? ''
  if (!/^[0-9a-f]{64}$/.test(token))
    return fail(
      'BRIDGE_CLIENT_TOKEN must hold an MCP client token (64 hex characters): `bridge client add <name> --for claude-desktop` writes it into the client configuration',
    )
  let port: number
  try {
    port = daemonPort(flags.port).port
  } catch (error) {
    return fail(errorText(error))
  }
  // Loaded here: the relay brings the MCP SDK, which no other command needs at start.
  const { startStdioRelay } = await import('../../src/mcp/stdioRelay')
  const relay = await startStdioRelay({ url: `${baseUrl(port)}/mcp`, token, diagnostics: warn })
  await relay.closed
}

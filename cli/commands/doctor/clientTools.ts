/**
 * How many tools each named MCP client sees: `tools/list` asked as that client (its own token, the
 * 2026-07-28 revision, so no session is opened), only after the daemon proved it knows the secret.
 * Zero is a warning with the one command that turns on the core browser tools: every tool starts off,
 * and an agent that lists none is otherwise left guessing.
 */
import type { ClientEntry } from '../../../src/config/clients'
import { neutralizeText } from '../../../src/protocol/untrustedText'
import { daemonFetch, proveDaemon } from '../../../src/http/daemonClient'
import { pass, warnOf, type CheckResult } from './check'

const REVISION = '2026-07-28'
const LIST_TIMEOUT_MS = 5_000

export async function checkClientTools(
  port: number,
  secret: string,
  clients: readonly ClientEntry[],
): Promise<CheckResult[]> {
  if (clients.length === 0) return []
  if (!(await proveDaemon(port, secret)).ok) return []
  const results: CheckResult[] = []
  for (const client of clients) {
    const name = neutralizeText(client.name, 64)
    const count = await listedTools(port, client.token)
    if (count === undefined) results.push(warnOf(`MCP client "${name}": its tool list could not be read`))
    else if (count === 0)
      results.push(
        warnOf(
          `MCP client "${name}" sees 0 tools: every tool is off until you turn it on`,
          'turn on the core browser tools with `bridge config set plugin-permission.browser ask` (or in the side panel)',
        ),
      )
    else results.push(pass(`MCP client "${name}" sees ${count} tool${count === 1 ? '' : 's'}`))
  }
  return results
}

async function listedTools(port: number, token: string): Promise<number | undefined> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': REVISION,
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  const answer = await daemonFetch(port, null, '/mcp', {
    method: 'POST',
    timeoutMs: LIST_TIMEOUT_MS,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }),
  })
  if (!answer.ok || answer.response.status !== 200) return undefined
  const body = (await answer.response.json().catch(() => null)) as { result?: { tools?: unknown[] } } | null
  return Array.isArray(body?.result?.tools) ? body.result.tools.length : undefined
}

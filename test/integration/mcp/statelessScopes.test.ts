/**
 * Per-client listing on the stateless revision (2026-07-28), on both engines: what a client may use
 * (its scope, set with `bridge client add|set --plugins --builtins --other-agent`) filters its
 * `tools/list`, and with no session the daemon knows the client only by the token on each request.
 * Two clients with different scopes, each on the MCP SDK v2 client pinned to 2026-07-28, see their
 * own lists; one client sees the same list on every request, on a new connection, and in a
 * 2025-11-25 session; a scope changed with `bridge client set` applies to that client's next request
 * and to no one else's; and a call outside the scope is refused on a stateless request as well.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { connectMcp, textOf } from '../../helpers/mcpClient'
import { connectMcpV2 } from '../../helpers/mcpClientV2'
import { runCli } from '../cli/runCli'
import { auditEntries, startFixture, type Fixture } from '../toolcall/fixture'

interface Listed {
  name: string
  inputSchema: { properties?: Record<string, unknown> }
}

describe.each(ENGINES)('tools/list per client on stateless requests (%s engine)', (engine) => {
  let fx: Fixture
  const tokens: Record<string, string> = {}

  const cli = (args: string[]) => runCli([...args, '--port', String(fx.daemon.port)], fx.configDir)

  beforeAll(async () => {
    fx = await startFixture(engine, {
      plugins: [
        { name: 'notes', tools: [{ name: 'list_notes' }, { name: 'delete_note' }] },
        { name: 'mail', tools: [{ name: 'send' }] },
      ],
      // The browser default reaches the core set of built-ins (tabs, page, input... tools).
      permissions: {
        notes: { permission: 'auto' },
        mail: { permission: 'auto' },
        browser: { permission: 'auto' },
      },
    })
    const clients: Record<string, string[]> = {
      // Only the notes plugin, no built-in tool.
      alpha: ['--plugins', 'notes', '--builtins', 'none'],
      // Only the mail plugin and the tabs group of built-ins.
      beta: ['--plugins', 'mail', '--builtins', 'tabs'],
      // Everything, and other agents' tabs too.
      gamma: ['--other-agent', 'yes'],
    }
    for (const [name, scope] of Object.entries(clients)) {
      const added = await cli(['client', 'add', name, '--json', ...scope])
      expect(added.code, added.stderr).toBe(0)
      tokens[name] = (JSON.parse(added.stdout) as { token: string }).token
    }
  }, 60_000)
  afterAll(async () => {
    await fx?.stop()
  })

  /** The tools one client lists on a new stateless connection (server/discover, then tools/list). */
  const listStateless = async (client: string): Promise<Listed[]> => {
    const mcp = await connectMcpV2(fx.daemon, tokens[client] ?? '', { name: `${client}-agent` })
    try {
      const { tools } = await mcp.client.listTools()
      // No session: every request stood on its own, identified by the token it carried.
      expect(mcp.sent.every((request) => request.headers['mcp-session-id'] === undefined)).toBe(true)
      return tools
    } finally {
      await mcp.close()
    }
  }
  const names = (tools: Listed[]) => tools.map((tool) => tool.name)

  it('lists to each client the tools of its own scope', async () => {
    const alpha = names(await listStateless('alpha'))
    const beta = names(await listStateless('beta'))
    const gamma = names(await listStateless('gamma'))

    expect(alpha).toEqual(['notes_list_notes', 'notes_delete_note'])
    expect(beta).toContain('mail_send')
    expect(beta).toContain('browser_list_tabs')
    expect(beta.filter((name) => name.startsWith('notes_'))).toEqual([])
    // Built-ins of other groups (input: browser_click) are not beta's.
    expect(beta).not.toContain('browser_click')
    // Unscoped gamma sees every listed tool, among them each of the others' and more.
    for (const name of [...alpha, ...beta]) expect(gamma).toContain(name)
    expect(gamma).toContain('browser_click')
    expect(gamma.length).toBeGreaterThan(new Set([...alpha, ...beta]).size)
  })

  it('offers otherAgent only to the client allowed to act in other agents’ tabs', async () => {
    const withOtherAgent = (tools: Listed[]) =>
      tools.filter((tool) => 'otherAgent' in (tool.inputSchema.properties ?? {})).map((tool) => tool.name)
    const gamma = await listStateless('gamma')
    const beta = await listStateless('beta')
    // Gamma gets the field on the tools that act in a tab (those with tabId), beta on none of them.
    const tabTools = (tools: Listed[]) =>
      tools.filter((tool) => 'tabId' in (tool.inputSchema.properties ?? {})).map((tool) => tool.name)
    expect(tabTools(gamma).length).toBeGreaterThan(0)
    expect(withOtherAgent(gamma)).toEqual(tabTools(gamma))
    expect(tabTools(beta).length).toBeGreaterThan(0)
    expect(withOtherAgent(beta)).toEqual([])
  })

  it('gives one client the same list on every request, on a new connection and in a 2025-11-25 session', async () => {
    const mcp = await connectMcpV2(fx.daemon, tokens.beta ?? '', { name: 'beta-agent' })
    let first: Listed[]
    try {
      first = (await mcp.client.listTools()).tools
      const second = (await mcp.client.listTools()).tools as Listed[]
      expect(second).toEqual(first)
    } finally {
      await mcp.close()
    }
    expect(await listStateless('beta')).toEqual(first)
    // The same token in a session: the list is the client's, whatever the revision.
    const session = await connectMcp({ url: fx.daemon.url, secret: tokens.beta ?? '' }, 'beta-session')
    try {
      expect((await session.client.listTools()).tools).toEqual(first)
    } finally {
      await session.close()
    }
  })

  it('applies a scope changed with bridge client set to that client’s next request only', async () => {
    const betaBefore = names(await listStateless('beta'))
    const set = await cli(['client', 'set', 'alpha', '--plugins', 'mail'])
    expect(set.code, set.stderr).toBe(0)
    await expect
      .poll(async () => names(await listStateless('alpha')), { timeout: 15_000 })
      .toEqual(['mail_send'])
    expect(names(await listStateless('beta'))).toEqual(betaBefore)
    const reset = await cli(['client', 'set', 'alpha', '--plugins', 'notes'])
    expect(reset.code, reset.stderr).toBe(0)
    await expect
      .poll(async () => names(await listStateless('alpha')), { timeout: 15_000 })
      .toEqual(['notes_list_notes', 'notes_delete_note'])
  })

  it('refuses a stateless call outside the client’s scope before anything runs, and audits it as that client', async () => {
    const mcp = await connectMcpV2(fx.daemon, tokens.alpha ?? '', { name: 'alpha-agent' })
    try {
      const result = await mcp.client.callTool({ name: 'mail_send', arguments: {} })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toBe(
        '[out_of_scope] the client "alpha" may not use the plugin "mail": the user has not given it that scope (bridge client set alpha)',
      )
    } finally {
      await mcp.close()
    }
    const entries = (await auditEntries(fx.daemon)).filter((entry) => entry.tool === 'mail_send')
    expect(entries[0]).toMatchObject({ client: 'alpha', success: false, error: { code: 'out_of_scope' } })
  })
})

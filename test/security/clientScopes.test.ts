/**
 * Clients kept apart: two (three) agents, each a real MCP SDK client with its own token, against the
 * real daemon and the real extension in Chromium. Attacks: agent B passes `otherAgent: true` to act in
 * agent A's tab (the old daemon let any client do it: the tab groups were only a guard against
 * accidents), and an agent the user scoped to one plugin and two built-in groups lists and calls a
 * plugin and a group outside its scope. Each refusal is clear and audited; the user widens a scope
 * with `bridge client set`, and sees it in `bridge client show` and in the approval card.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textOf } from '../helpers/mcpClient'
import { startAgentsInBrowser, type Agent, type AgentsInBrowser } from './support/agentsInBrowser'

interface AuditRow {
  tool: string
  client?: string
  success: boolean
  error?: { code: string; message: string; category?: string }
}

describe('clients kept apart by their scopes', () => {
  let env: AgentsInBrowser
  let alice: Agent
  let bob: Agent
  let carol: Agent
  let aliceTab: number

  const audit = async (client: string, tool: string) =>
    ((await (await env.daemon.fetch('/audit?limit=100')).json()) as AuditRow[]).filter(
      (row) => row.client === client && row.tool === tool,
    )

  beforeAll(async () => {
    env = await startAgentsInBrowser({
      plugins: [
        { name: 'notes', tools: [{ name: 'list' }] },
        { name: 'mail', tools: [{ name: 'send' }] },
      ],
      permissions: {
        browser: { permission: 'auto', groups: ['all'], tools: { browser_list_tabs: 'ask' } },
        notes: { permission: 'auto' },
        mail: { permission: 'auto' },
      },
    })
    alice = await env.agent('alice')
    bob = await env.agent('bob')
    carol = await env.agent('carol', ['--plugins', 'mail', '--builtins', 'tabs,page'])
    aliceTab = (await alice.json<{ tabId: number }>('browser_open_tab', { url: env.site.url('/') })).tabId
  }, 120_000)
  afterAll(async () => {
    await env?.close()
  })

  it('refuses client B acting in client A’s tab with otherAgent: true, says why, and audits it', async () => {
    const result = await bob.call('browser_get_text', { tabId: aliceTab, otherAgent: true })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(
      `[out_of_scope] the client "bob" may not act in another agent's tabs: use your own tabs (browser_open_tab); the user can allow it with bridge client set bob --other-agent yes`,
    )
    // Without the flag the extension refuses the tab of another agent's group, as before.
    const plain = await bob.call('browser_get_text', { tabId: aliceTab })
    expect(plain.isError).toBe(true)
    expect(textOf(plain)).toContain('is in the tab group of "alice", another agent')
    const rows = await audit('bob', 'browser_get_text')
    expect(rows[rows.length - 1]).toBeDefined()
    expect(rows.find((r) => r.error?.code === 'out_of_scope')).toMatchObject({
      success: false,
      error: { code: 'out_of_scope', category: 'permission' },
    })
    // otherAgent is not even offered to a client that may not use it.
    const listed = (await bob.mcp.client.listTools()).tools.find((t) => t.name === 'browser_get_text')
    expect(Object.keys((listed?.inputSchema.properties ?? {}) as object)).not.toContain('otherAgent')
  })

  it('lets B act there once the user allows it with bridge client set', async () => {
    const set = await env.cli(['client', 'set', 'bob', '--other-agent', 'yes'])
    expect(set.stderr).toBe('')
    expect(set.code).toBe(0)
    expect(set.stdout).toContain('otherAgent yes')
    const text = await bob.json<{ text: string }>('browser_get_text', {
      tabId: aliceTab,
      selector: 'h1',
      otherAgent: true,
    })
    expect(text.text).toBe('Welcome to the fixture')
  })

  it('does not list a plugin or a built-in group outside a client’s scope', async () => {
    const names = (await carol.mcp.client.listTools()).tools.map((t) => t.name)
    expect(names).toContain('mail_send')
    expect(names).toContain('browser_open_tab')
    expect(names).toContain('browser_get_text')
    expect(names).not.toContain('notes_list')
    expect(names).not.toContain('browser_click')
    expect(names.filter((n) => n.startsWith('browser_network'))).toEqual([])
    // An unscoped client still sees them all.
    const all = (await alice.mcp.client.listTools()).tools.map((t) => t.name)
    expect(all).toContain('notes_list')
    expect(all).toContain('browser_click')
  })

  it('refuses a call outside the scope before anything runs, and audits it', async () => {
    const plugin = await carol.call('notes_list', {})
    expect(plugin.isError).toBe(true)
    expect(textOf(plugin)).toBe(
      '[out_of_scope] the client "carol" may not use the plugin "notes": the user has not given it that scope (bridge client set carol)',
    )
    const builtin = await carol.call('browser_click', { tabId: aliceTab, selector: 'h1' })
    expect(textOf(builtin)).toBe(
      '[out_of_scope] the client "carol" may not use the built-in group "input": the user has not given it that scope (bridge client set carol)',
    )
    expect(await audit('carol', 'notes_list')).toMatchObject([
      { success: false, error: { code: 'out_of_scope', category: 'permission' } },
    ])
    expect(await audit('carol', 'browser_click')).toMatchObject([
      { success: false, error: { code: 'out_of_scope' } },
    ])
  })

  it('shows the scope in bridge client show and in the approval card', async () => {
    const shown = await env.cli(['client', 'show', 'carol'])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain('plugins   mail')
    expect(shown.stdout).toContain('builtins  tabs, page')
    expect(shown.stdout).toContain('otherAgent no')
    const panel = await env.browser.openSidePanel()
    const waiting = carol.call('browser_list_tabs', {})
    const card = panel.getByTestId('approval')
    await card.waitFor({ timeout: 20_000 })
    await expect.poll(() => panel.getByTestId('approval-client').textContent()).toBe('carol')
    const scope = (await panel.getByTestId('approval-scope').textContent()) ?? ''
    expect(scope).toMatch(/plugins\s+mail/)
    expect(scope).toMatch(/builtins\s+tabs, page/)
    await panel.getByTestId('deny').click()
    expect(textOf(await waiting)).toMatch(/^\[approval_denied\]/)
    await panel.close()
  })
})

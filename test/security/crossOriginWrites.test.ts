/**
 * An agent with a tab on one site aims cookie, storage and site-data writes at another origin (here
 * http://localhost:<port>, another site than the tab's http://127.0.0.1:<port>), through the daemon
 * and the real extension in Chromium: to plant a session cookie there, or wipe the user's data there,
 * without any tab of that origin (and so past tab groups, scopes and what an approval names). The old
 * extension set a cookie for any `url` it was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textOf } from '../helpers/mcpClient'
import { startAgentsInBrowser, type Agent, type AgentsInBrowser } from './support/agentsInBrowser'

describe('cookie, storage and site-data writes aimed at another origin', () => {
  let env: AgentsInBrowser
  let agent: Agent
  let tabId: number
  let otherOrigin: string

  const cookiesOf = async (url: string) =>
    (await env.browser.context.cookies(url)).map((c) => `${c.name}=${c.value}`).sort()

  beforeAll(async () => {
    env = await startAgentsInBrowser({
      permissions: {
        browser: { permission: 'auto', groups: ['all'], tools: { browser_clear_site_data: 'auto' } },
      },
    })
    agent = await env.agent('writer')
    tabId = (await agent.json<{ tabId: number }>('browser_open_tab', { url: env.site.url('/cookies') })).tabId
    otherOrigin = new URL(env.site.url('/')).origin.replace('127.0.0.1', 'localhost')
    // The other site holds the user's own session there.
    const other = await env.browser.newPage(`${otherOrigin}/cookies`)
    await other.evaluate(() => localStorage.setItem('draft', 'the user’s draft'))
  }, 120_000)
  afterAll(async () => {
    await env?.close()
  })

  it('refuses a cookie set for another origin, and the other site’s cookies stay as they were', async () => {
    const before = await cookiesOf(otherOrigin)
    const result = await agent.call('browser_set_cookie', {
      tabId,
      url: `${otherOrigin}/`,
      name: 'session',
      value: 'attacker-session',
    })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain(
      `shows ${new URL(env.site.url('/')).origin}, not ${otherOrigin}: cookies are written only for the tab page's own origin; nothing was changed`,
    )
    expect(await cookiesOf(otherOrigin)).toEqual(before)
    expect(before).toContain('session=abc123secret')
  })

  it('refuses a cookie deleted for another origin', async () => {
    const result = await agent.call('browser_delete_cookie', {
      tabId,
      url: `${otherOrigin}/`,
      name: 'session',
    })
    expect(result.isError).toBe(true)
    expect(await cookiesOf(otherOrigin)).toContain('session=abc123secret')
  })

  it('still sets a cookie on the tab page’s own origin, also by another path of it', async () => {
    const set = await agent.json<{ url: string; name: string }>('browser_set_cookie', {
      tabId,
      url: env.site.url('/form'),
      name: 'pref',
      value: 'compact',
    })
    expect(set).toMatchObject({ url: env.site.url('/form'), name: 'pref' })
    expect(await cookiesOf(env.site.url('/form'))).toContain('pref=compact')
    expect(await cookiesOf(otherOrigin)).not.toContain('pref=compact')
  })

  it('writes storage only in the tab’s own origin, which the result names', async () => {
    const set = await agent.json<{ origin: string }>('browser_storage_set', {
      tabId,
      key: 'draft',
      value: 'x',
    })
    expect(set.origin).toBe(new URL(env.site.url('/')).origin)
    const other = await env.browser.newPage(`${otherOrigin}/`)
    expect(await other.evaluate(() => localStorage.getItem('draft'))).toBe('the user’s draft')
    await other.close()
  })

  it('clears no site data of an origin the tab does not show', async () => {
    const result = await agent.call('browser_clear_site_data', { tabId, origin: otherOrigin })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain(`not ${otherOrigin}: nothing was cleared`)
    expect(await cookiesOf(otherOrigin)).toContain('session=abc123secret')
    const other = await env.browser.newPage(`${otherOrigin}/`)
    expect(await other.evaluate(() => localStorage.getItem('draft'))).toBe('the user’s draft')
    await other.close()
  })
})

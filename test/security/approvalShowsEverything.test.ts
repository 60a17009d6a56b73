import { randomBytes } from 'node:crypto'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserHarness } from '../helpers/browser'
import { buildFixturePlugin, type BuiltPlugin } from '../e2e/support/fixturePlugin'
import { startTinyDaemon, type TinyDaemon } from '../e2e/extension/tinyDaemon'

// The attacks: an agent shapes its arguments (and a page its title) so that the approval the user
// reads is not the call that runs: the dangerous part pushed past what the panel shows, a bidi
// override reversing a file name, zero-width characters hiding a difference. The real side panel in
// Chromium shows all of it, with every invisible character as a visible marker, and says who asks,
// where it runs and how long is left.
describe('an approval cannot mislead', () => {
  const secret = randomBytes(32).toString('hex')
  let daemon: TinyDaemon
  let browser: BrowserHarness
  let plugin: BuiltPlugin
  let panel: Page
  let seq = 0

  const ask = (over: Record<string, unknown>): string => {
    const id = `m${++seq}`
    daemon.notify('confirmation.request', {
      id,
      plugin: 'notes',
      tool: 'create_note',
      params: {},
      expiresAt: Date.now() + 120_000,
      client: 'research-agent',
      tab: { tabId: 41, title: 'Notes of alice', url: 'http://127.0.0.1:8123/' },
      ...over,
    })
    return id
  }
  const card = (id: string) => panel.locator(`[data-approval-id="${id}"]`)
  const deny = async (id: string): Promise<void> => {
    await card(id).getByTestId('deny').click()
    await expect.poll(() => card(id).count()).toBe(0)
  }

  beforeAll(async () => {
    plugin = await buildFixturePlugin()
    daemon = await startTinyDaemon({ secret, plugins: [plugin.state('ask')] })
    browser = await launchBrowser({ port: daemon.port, secret })
    await daemon.waitFor((f) => f.method === 'tab.syncAll')
    panel = await browser.openSidePanel()
  })
  afterAll(async () => {
    await browser?.close()
    await daemon?.close()
    plugin?.remove()
  })

  it('names the client that asks and the tab the call will run in', async () => {
    const id = ask({})
    await expect.poll(() => card(id).count()).toBe(1)
    expect(await card(id).getByTestId('approval-client').textContent()).toBe('research-agent')
    expect(await card(id).getByTestId('approval-tab-title').textContent()).toBe('Notes of alice')
    expect(await card(id).getByTestId('approval-tab-url').textContent()).toBe('http://127.0.0.1:8123/')
    expect(await card(id).getByTestId('approval-tab').getAttribute('data-tab-id')).toBe('41')
    await deny(id)
  })

  it('shows the whole arguments: what hides past a screen is one click away, never cut', async () => {
    const filler = 'Weekly report. '.repeat(600)
    const params = { title: 'Report', body: `${filler}\nP.S. also send the password file to evil.example` }
    const id = ask({ params })
    await expect.poll(() => card(id).count()).toBe(1)
    const args = card(id).getByTestId('approval-params')
    expect(await args.textContent()).not.toContain('evil.example')
    const toggle = card(id).getByTestId('approval-params-toggle')
    expect(await toggle.textContent()).toMatch(/Show all arguments \([\d,]+ more characters/)
    await toggle.click()
    const whole = (await args.textContent()) ?? ''
    expect(whole).toContain('P.S. also send the password file to evil.example')
    expect(JSON.parse(whole)).toEqual(params)
    await deny(id)
  })

  it('shows bidi overrides, isolates, zero-width and control characters as markers, never raw', async () => {
    const id = ask({
      client: 'helper\u202Etnega-dab',
      params: { title: 'invoice\u202Egpj.exe', body: 'pay\u200B\u2066ment\u2069 to acct 1\u00AD2' },
      tab: { tabId: 41, title: 'Bank\u2067 – login\u2069', url: 'https://bank.example/\u202Epay' },
    })
    await expect.poll(() => card(id).count()).toBe(1)
    const text = (await card(id).textContent()) ?? ''
    expect(text).not.toMatch(/[\u202E\u200B\u2066\u2067\u2069\u00AD]/)
    expect(await card(id).getByTestId('approval-client').textContent()).toBe('helper⟨U+202E⟩tnega-dab')
    const args = (await card(id).getByTestId('approval-params').textContent()) ?? ''
    expect(args).toContain('invoice⟨U+202E⟩gpj.exe')
    expect(args).toContain('pay⟨U+200B⟩⟨U+2066⟩ment⟨U+2069⟩ to acct 1⟨U+00AD⟩2')
    expect(await card(id).getByTestId('approval-tab-title').textContent()).toBe(
      'Bank⟨U+2067⟩ – login⟨U+2069⟩',
    )
    expect(await card(id).getByTestId('approval-tab-url').textContent()).toBe(
      'https://bank.example/⟨U+202E⟩pay',
    )
    // Each marker is its own element, styled apart from the text around it.
    expect(await card(id).getByTestId('invisible-char').count()).toBe(9)
    await deny(id)
  })

  it('names the client of each recent call, and shows a page’s control characters in its error as markers', async () => {
    daemon.audit = [
      {
        timestamp: new Date().toISOString(),
        tool: 'notes_create_note',
        plugin: 'notes',
        client: 'research-agent',
        success: false,
        durationMs: 12,
        error: { code: 'tool_error', message: 'Saved \u202Efdp.exe to your files', category: 'internal' },
      },
    ]
    // A recorded call makes the panel read the audit log again.
    daemon.notify('audit.recorded', { tool: 'notes_create_note', success: false })
    const entry = panel.getByTestId('audit-entry')
    await expect.poll(() => entry.count(), { timeout: 10_000 }).toBe(1)
    expect(await entry.getByTestId('audit-client').textContent()).toBe('research-agent')
    const error = (await entry.getByTestId('audit-error').textContent()) ?? ''
    expect(error).toBe('[tool_error] Saved ⟨U+202E⟩fdp.exe to your files')
  })

  it('shows the time left to decide, counting down', async () => {
    const id = ask({ expiresAt: Date.now() + 95_000 })
    await expect.poll(() => card(id).count()).toBe(1)
    const left = card(id).getByTestId('approval-time-left')
    const first = (await left.textContent()) ?? ''
    expect(first).toMatch(/^1:3[0-5]$/)
    await expect.poll(async () => (await left.textContent()) !== first, { timeout: 5_000 }).toBe(true)
    expect(await left.textContent()).toMatch(/^1:3[0-4]$/)
    await deny(id)
  })
})

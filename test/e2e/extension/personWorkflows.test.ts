import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Dialog, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveBridge, type LiveBridge } from '../../helpers/liveBridge'
import { scaled } from '../../helpers/timing'
import { runCli } from '../../integration/cli/runCli'
import { startPersonSite, type PersonSite } from '../support/personSite'

// Workflows in the side panel, end to end in real Chromium with the real extension and the real daemon:
// a person records their own demonstration with Record / Stop (the test drives the tab with
// Playwright's trusted input), it replays with `bridge workflow run` and the shop's server judges; the
// panel lists it in words and edits it through the daemon; a page cannot record steps by itself.
const TIMEOUT = scaled(240_000)
const POLL = { timeout: scaled(30_000) }

interface SavedFile {
  permission: string
  recordedBy: string
  variables: { name: string; secret: boolean; default?: string }[]
  steps: { action: string; text?: string; target?: { css?: string; frame?: string[] }; post?: unknown }[]
  history: { change: string; step: number; note: string; old?: { css?: string } }[]
}

describe('workflows in the side panel: a person records, the panel edits', () => {
  let bridge: LiveBridge<PersonSite>
  let panel: Page
  let tab: Page
  const fileOf = (name: string) => join(bridge.configDir, 'workflows', `${name}.json`)
  const readFile = (name: string) => JSON.parse(readFileSync(fileOf(name), 'utf8')) as SavedFile
  const steps = () => panel.getByTestId('recording-steps').textContent()

  beforeAll(async () => {
    bridge = await startLiveBridge({ site: startPersonSite })
    panel = await bridge.browser.openSidePanel()
    await panel.locator('[data-testid=connection-status][data-state=connected]').waitFor(POLL)
    tab = await bridge.browser.newPage(bridge.site.url('/login'))
  }, TIMEOUT)
  afterAll(async () => {
    await bridge?.close()
  })

  /** Record in the front tab: it must be the site's, not the panel's. */
  const record = async (name: string, description = '') => {
    await tab.bringToFront()
    await panel.getByTestId('record-name').fill(name)
    await panel.getByTestId('record-description').fill(description)
    await panel.getByTestId('record-start').click()
    await expect.poll(steps, POLL).toBe('1')
  }

  it(
    "records a person's demonstration in the same step format, with no password in the file, and it replays from the CLI",
    async () => {
      const site = bridge.site
      await record('add_to_cart', 'Add a lamp to the cart')
      await tab.click('#email')
      await tab.keyboard.type('ada@example.com')
      await tab.click('#pw')
      await tab.keyboard.type(site.password)
      await tab.keyboard.press('Enter')
      await tab.waitForURL('**/search')
      // A person reads the page a moment before the next act (the acts on the product page below come
      // at once, before the page settled: the recorder tells their changes apart).
      await expect.poll(steps, POLL).toBe('3')
      await tab.click('#q')
      await tab.keyboard.type('lamp')
      await tab.keyboard.press('Enter')
      await tab.getByText('Results for lamp').waitFor(POLL)
      await expect.poll(steps, POLL).toBe('4')
      await tab.getByRole('link', { name: 'See lamp' }).click()
      await tab.waitForURL('**/item?*')
      await tab.focus('#colour')
      await tab.keyboard.press('ArrowDown')
      await tab.frameLocator('#gift').locator('#text').click()
      await tab.keyboard.type('For Ada')
      await tab.click('#add')
      await tab.waitForURL('**/cart')
      expect(site.carts).toEqual([{ user: 'ada@example.com', item: 'lamp', colour: 'blue', note: 'For Ada' }])
      await expect
        .poll(steps, POLL)
        .toBe('8')
        .catch(async (e: unknown) => {
          await panel.getByTestId('record-stop').click()
          await new Promise((r) => setTimeout(r, 3000))
          console.log(readFileSync(fileOf('add_to_cart'), 'utf8'))
          throw e
        })
      await panel.getByTestId('record-stop').click()
      await expect.poll(() => panel.getByTestId('record-saved').count(), POLL).toBe(1)

      const text = readFileSync(fileOf('add_to_cart'), 'utf8')
      expect(statSync(fileOf('add_to_cart')).mode & 0o777).toBe(0o600)
      expect(text).not.toContain(site.password)
      const saved = readFile('add_to_cart')
      expect(saved.permission).toBe('off')
      expect(saved.recordedBy).toBe('person')
      expect(saved.variables).toEqual([
        { name: 'email', secret: false, default: 'ada@example.com' },
        { name: 'password', secret: true },
        { name: 'search', secret: false, default: 'lamp' },
        { name: 'giftNote', secret: false, default: 'For Ada' },
      ])
      // The panel lists it in words, as `bridge workflow show` does.
      const card = panel.getByTestId('workflow-add_to_cart')
      await expect
        .poll(() => card.getByTestId('workflow-step-text').allTextContents(), POLL)
        .toEqual([
          `Go to ${site.url('/login')}`,
          'Type {{email}} into textbox "Email"',
          'Type {{password}} into textbox "Password", then Enter',
          'Type {{search}} into searchbox "Search", then Enter',
          'Click link "See lamp"',
          'Choose "blue" in combobox "Colour"',
          'Type {{giftNote}} into textbox "Gift note" (in a frame)',
          'Click button "Add to cart"',
        ])
      expect(await card.getAttribute('data-permission')).toBe('off')
      expect(await card.getByTestId('workflow-variable-value').allTextContents()).toContain(
        'secret: not stored, given at each run',
      )
      // Post-conditions from the page's settle-and-diff, as for an agent's steps.
      expect(saved.steps[2]!.post).toMatchObject({ url: site.url('/search'), title: 'Search' })
      expect(saved.steps[3]!.post).toMatchObject({
        appeared: expect.arrayContaining(['Results for {{search}}']),
      })
      expect(saved.steps[6]!.target?.frame).toEqual(['#gift'])
      expect(saved.steps[7]!.post).toMatchObject({ url: site.url('/cart'), title: 'Cart' })

      // Off: the run is refused before any step. The panel turns it on (the daemon writes the file).
      const run = (vars: string[]) =>
        runCli(
          [
            'workflow',
            'run',
            'add_to_cart',
            ...vars.flatMap((v) => ['--var', v]),
            '--port',
            String(bridge.daemon.port),
          ],
          bridge.configDir,
          {},
          scaled(180_000),
        )
      expect((await run([`password=${site.password}`])).code).toBe(3)
      await card.getByTestId('workflow-permission-auto').click()
      await expect.poll(() => readFile('add_to_cart').permission, POLL).toBe('auto')
      await expect.poll(() => card.getAttribute('data-permission'), POLL).toBe('auto')
      const missing = await run([])
      expect(missing.code).toBe(3)
      expect(missing.stderr + missing.stdout).toContain('password')
      const replayed = await run([`password=${site.password}`, 'giftNote=From the CLI', 'search=desk'])
      expect(replayed.code, replayed.stderr + replayed.stdout).toBe(0)
      expect(site.carts.slice(1)).toEqual([
        { user: 'ada@example.com', item: 'desk', colour: 'blue', note: 'From the CLI' },
      ])
      expect(readFileSync(fileOf('add_to_cart'), 'utf8')).not.toContain(site.password)
    },
    TIMEOUT,
  )

  it(
    'renames a variable, deletes a step into the history and deletes the workflow, all through the daemon',
    async () => {
      const card = panel.getByTestId('workflow-add_to_cart')
      const variable = card.locator('[data-testid=workflow-variable][data-name=giftNote]')
      await variable.getByTestId('workflow-variable-rename').click()
      await variable.getByTestId('workflow-variable-input').fill('note')
      await variable.getByTestId('workflow-variable-save').click()
      await expect.poll(() => readFile('add_to_cart').variables.map((v) => v.name), POLL).toContain('note')
      expect(readFile('add_to_cart').steps[6]!.text).toBe('{{note}}')
      await expect
        .poll(() => card.getByTestId('workflow-step-text').nth(6).textContent(), POLL)
        .toBe('Type {{note}} into textbox "Gift note" (in a frame)')

      // The daemon checks a name as the file's schema does: the panel shows its refusal.
      const email = card.locator('[data-testid=workflow-variable][data-name=email]')
      await email.getByTestId('workflow-variable-rename').click()
      await email.getByTestId('workflow-variable-input').fill('1 bad name')
      await email.getByTestId('workflow-variable-save').click()
      await expect
        .poll(() => panel.getByTestId('panel-error').textContent(), POLL)
        .toContain('not a variable name')
      expect(readFile('add_to_cart').variables.map((v) => v.name)).toContain('email')

      // Step 6 (the colour) goes; its target stays in the history, as a healed locator's does.
      await card.getByTestId('workflow-step-delete').nth(5).click()
      await expect.poll(() => readFile('add_to_cart').steps.length, POLL).toBe(7)
      const edited = readFile('add_to_cart')
      expect(edited.steps.some((s) => s.action === 'select')).toBe(false)
      // The replay with another search healed the link "See lamp" first (saved in the history too).
      expect(edited.history.map((h) => h.change)).toEqual(['healed', 'removed'])
      expect(edited.history.slice(1)).toEqual([
        expect.objectContaining({
          change: 'removed',
          step: 6,
          note: 'removed: Choose "blue" in combobox "Colour"',
          old: expect.objectContaining({ css: '#colour' }),
        }),
      ])
      await expect.poll(() => card.getByTestId('workflow-step').count(), POLL).toBe(7)

      await card.getByTestId('workflow-delete').click()
      await card.getByTestId('workflow-delete-confirm').click()
      await expect.poll(() => existsSync(fileOf('add_to_cart')), POLL).toBe(false)
      await expect.poll(() => panel.getByTestId('workflow-add_to_cart').count(), POLL).toBe(0)
    },
    TIMEOUT,
  )

  it(
    "keeps a person's recording when Chrome stops the extension's service worker mid-demonstration",
    async () => {
      const site = bridge.site
      // Signed in by the first test: a product page is the start.
      await tab.goto(site.url('/item?name=desk'))
      await record('desk_in_green')
      // The person pauses; Chrome stops the worker, and with it everything in its memory.
      await bridge.browser.stopServiceWorker()
      // The person's next act wakes the worker: the recording is back, and the act is its next step.
      await tab.focus('#colour')
      await tab.keyboard.press('End')
      await tab.keyboard.press('ArrowDown')
      await expect
        .poll(
          () =>
            panel
              .getByTestId('recording')
              .getAttribute('data-steps')
              .catch(() => null),
          POLL,
        )
        .toBe('2')
      await tab.click('#add')
      await tab.waitForURL('**/cart')
      await expect.poll(steps, POLL).toBe('3')
      await panel.getByTestId('record-stop').click()
      await expect.poll(() => existsSync(fileOf('desk_in_green')), POLL).toBe(true)
      const saved = readFile('desk_in_green')
      expect(saved.steps.map((s) => s.action)).toEqual(['navigate', 'select', 'click'])
      expect(saved.steps[2]!.post).toMatchObject({ url: site.url('/cart'), title: 'Cart' })
      expect(site.carts.at(-1)).toMatchObject({ item: 'desk', colour: 'green' })
      await panel.getByTestId('workflow-desk_in_green').getByTestId('workflow-delete').click()
      await panel.getByTestId('workflow-desk_in_green').getByTestId('workflow-delete-confirm').click()
      await expect.poll(() => existsSync(fileOf('desk_in_green')), POLL).toBe(false)
    },
    TIMEOUT,
  )

  it(
    "records a navigation typed in the address bar and the person's answer to a confirm dialog, and replays them",
    async () => {
      const site = bridge.site
      // Playwright answers a dialog itself unless the page has a listener: here the person does.
      let person = true
      const answer = (dialog: Dialog) => void (person ? dialog.accept() : undefined)
      tab.on('dialog', answer)
      try {
        await tab.goto(site.url('/search'))
        await record('clear_drafts')
        // Typed into the address bar: Chrome's "typed" navigation, as the omnibox makes it.
        const cdp = await tab.context().newCDPSession(tab)
        await cdp.send('Page.navigate', { url: site.url('/drafts'), transitionType: 'typed' })
        await cdp.detach()
        await tab.waitForURL('**/drafts')
        await expect.poll(steps, POLL).toBe('2')
        await tab.click('#clear')
        await expect.poll(() => tab.textContent('#count'), POLL).toBe('Deleted 3 drafts')
        expect(site.deletions).toBe(1)
        await expect.poll(steps, POLL).toBe('4')
        await panel.getByTestId('record-stop').click()
        await expect.poll(() => existsSync(fileOf('clear_drafts')), POLL).toBe(true)
        const saved = readFile('clear_drafts') as SavedFile & {
          steps: { url?: string; accept?: boolean }[]
        }
        expect(saved.steps.map((s) => s.action)).toEqual(['navigate', 'navigate', 'click', 'dialog'])
        expect(saved.steps[1]!.url).toBe(site.url('/drafts'))
        expect(saved.steps[2]!.post).toEqual({ dialog: { type: 'confirm', message: 'Delete 3 old drafts?' } })
        expect(saved.steps[3]).toMatchObject({ accept: true, post: { appeared: ['Deleted 3 drafts'] } })
        const card = panel.getByTestId('workflow-clear_drafts')
        await expect
          .poll(() => card.getByTestId('workflow-step-text').allTextContents(), POLL)
          .toEqual([
            `Go to ${site.url('/search')}`,
            `Go to ${site.url('/drafts')}`,
            'Click button "Delete old drafts"',
            'Accept the dialog',
          ])

        // The replay answers the dialog itself (bridge's debugger session), as the person did.
        person = false
        await tab.goto(site.url('/search'))
        await tab.bringToFront()
        expect((await bridge.cli(['workflow', 'set', 'clear_drafts', 'auto'])).code).toBe(0)
        const ran = await runCli(
          ['workflow', 'run', 'clear_drafts', '--port', String(bridge.daemon.port)],
          bridge.configDir,
          {},
          scaled(180_000),
        )
        expect(ran.code, ran.stdout + ran.stderr).toBe(0)
        expect(site.deletions).toBe(2)
      } finally {
        tab.off('dialog', answer)
      }
    },
    TIMEOUT,
  )

  it(
    "a hostile page's look-alike messages and synthetic events start nothing and record nothing",
    async () => {
      await tab.goto(bridge.site.url('/hostile'))
      const tick = async () => Number((await tab.title()).replace('Hostile ', '')) || 0
      // A second of the page's attempts with no recording: none starts, no file appears.
      const first = await tick()
      await expect.poll(tick, POLL).toBeGreaterThan(first + 20)
      expect(await panel.getByTestId('recording').count()).toBe(0)
      expect(existsSync(fileOf('hostile_flow'))).toBe(false)

      // Recording in that tab while the page keeps trying: only the page as it was is a step.
      await record('hostile_check')
      const during = await tick()
      await expect.poll(tick, POLL).toBeGreaterThan(during + 40)
      expect(await steps()).toBe('1')
      await panel.getByTestId('record-stop').click()
      await expect.poll(() => existsSync(fileOf('hostile_check')), POLL).toBe(true)
      const saved = readFile('hostile_check')
      expect(saved.steps.map((s) => s.action)).toEqual(['navigate'])
      expect(readFileSync(fileOf('hostile_check'), 'utf8')).not.toContain('injected')
      expect(existsSync(fileOf('hostile_flow'))).toBe(false)
    },
    TIMEOUT,
  )
})

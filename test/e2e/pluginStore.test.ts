import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemoSite, type DemoSite } from '../../examples/demo-site/server.mjs'
import type { BrowserHarness } from '../helpers/browser'
import type { RunningDaemon } from '../helpers/daemon'
import { startLiveBridge } from '../helpers/liveBridge'
import { startRegistry, type TestRegistry } from '../helpers/registry'
import { createTeardown } from '../helpers/teardown'
import { REGISTRY_STEP_TIMEOUT_MS, REGISTRY_TEST_TIMEOUT_MS, scaled } from '../helpers/timing'
import { buildFixturePlugin, type BuiltPlugin } from './support/fixturePlugin'

// The side panel's plugin store as a user works it: search the npm registry (verdaccio on loopback),
// install, see the plugin come alive in an open tab, update it, remove it. The real daemon runs the
// user's npm against a temp global prefix; the real extension loads from the daemon's folder.
// Every wait on npm (search, install, update, remove through the daemon) gets REGISTRY_STEP_TIMEOUT_MS;
// the rest a scaled 30 s: generous on a loaded 2-core machine, and BRIDGE_TEST_TIME_SCALE stretches both.
const UI_TIMEOUT_MS = scaled(30_000)

describe('plugin store in the side panel', { timeout: REGISTRY_TEST_TIMEOUT_MS }, () => {
  const teardown = createTeardown()
  let registry: TestRegistry
  let notes: BuiltPlugin
  let daemon: RunningDaemon
  let browser: BrowserHarness
  let site: DemoSite
  let panel: Page
  const PACKAGE = '@bridge-mcp/bridge-plugin-notes'
  const publishNotes = (version: string) =>
    registry.publish(notes.dir, {
      name: PACKAGE,
      version,
      description: 'Tools for the demo notes site',
      author: 'Notes Team',
    })

  beforeAll(async () => {
    registry = teardown.add(await startRegistry(), (r) => r.close())
    notes = teardown.add(await buildFixturePlugin(), (n) => n.remove())
    await publishNotes('0.1.0')
    const bridge = teardown.add(
      await startLiveBridge({
        site: () => startDemoSite({ port: 0 }),
        env: { ...registry.env(), BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined },
      }),
      (b) => b.close(),
    )
    ;({ daemon, browser, site } = bridge)
    panel = await browser.openSidePanel()
  }, REGISTRY_TEST_TIMEOUT_MS)
  afterAll(() => teardown.run())

  const installedDir = () => join(registry.prefix, 'lib', 'node_modules', PACKAGE)
  const card = () => panel.getByTestId('plugin-notes')
  const health = async () =>
    (await (await daemon.fetch('/health')).json()) as {
      pluginDetails: Array<{ name: string; version: string; tabState: string }>
    }

  it('searches the registry and installs a plugin, which then serves an open tab', async () => {
    await expect
      .poll(() => panel.getByTestId('connection-status').getAttribute('data-state'), {
        timeout: UI_TIMEOUT_MS,
      })
      .toBe('connected')
    await panel.getByTestId('store-query').fill('demo')
    await panel.getByTestId('store-search').click()
    const result = panel.getByTestId(`result-${PACKAGE}`)
    await expect.poll(() => result.textContent(), { timeout: REGISTRY_STEP_TIMEOUT_MS }).toContain('0.1.0')
    expect(await result.textContent()).toContain('Tools for the demo notes site · Notes Team')
    expect(await panel.getByTestId('store-results').locator('li').count()).toBe(1)

    await result.getByTestId('install').click()
    await expect
      .poll(() => panel.getByTestId('store-done').textContent(), { timeout: REGISTRY_STEP_TIMEOUT_MS })
      .toBe('Installed Demo Notes 0.1.0.')
    expect(await card().textContent()).toContain('Demo Notes 0.1.0')
    expect(await card().getByTestId('plugin-source').textContent()).toBe('npm')
    expect(await result.getByTestId('installed').textContent()).toBe('Installed 0.1.0')
    expect(existsSync(installedDir())).toBe(true)

    // The daemon wrote the new plugin's adapter where the extension loads it. A new plugin's tools are
    // off, so it runs nowhere yet; once the user turns it on, a tab opened on the site comes alive.
    await card().getByTestId('plugin-permission-auto').click()
    await browser.waitForAdapter('notes')
    const tab = await browser.newPage(`${site.url}/login?user=hana`)
    await expect
      .poll(() => card().getByTestId('tab-state').getAttribute('data-state'), { timeout: UI_TIMEOUT_MS })
      .toBe('ready')
    expect((await health()).pluginDetails.find((p) => p.name === 'notes')?.tabState).toBe('ready')
    await tab.close()
  })

  it('finds the newer version and updates to it, and says when all are up to date', async () => {
    await panel.getByTestId('check-updates').click()
    await expect
      .poll(() => panel.getByTestId('updates').textContent(), { timeout: REGISTRY_STEP_TIMEOUT_MS })
      .toContain('All plugins are up to date.')

    await publishNotes('0.2.0')
    await panel.getByTestId('check-updates').click()
    const row = panel.getByTestId('update-notes')
    await expect
      .poll(() => row.textContent(), { timeout: REGISTRY_STEP_TIMEOUT_MS })
      .toContain('0.1.0 → 0.2.0')
    await row.getByTestId('update').click()
    await expect
      .poll(() => panel.getByTestId('store-done').textContent(), { timeout: REGISTRY_STEP_TIMEOUT_MS })
      .toBe('Updated Demo Notes to 0.2.0.')
    expect(await card().textContent()).toContain('Demo Notes 0.2.0')
    expect((await health()).pluginDetails.find((p) => p.name === 'notes')?.version).toBe('0.2.0')
    expect(await row.count()).toBe(0)
  })

  it('shows why a package cannot be installed, and changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-broken-plugin-'))
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bridge-plugin-broken' }))
      await registry.publish(dir, { name: 'bridge-plugin-broken', version: '1.0.0', description: 'broken' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    await panel.getByTestId('store-query').fill('broken')
    await panel.getByTestId('store-search').click()
    const result = panel.getByTestId('result-bridge-plugin-broken')
    await expect.poll(() => result.count(), { timeout: REGISTRY_STEP_TIMEOUT_MS }).toBe(1)
    await result.getByTestId('install').click()
    await expect
      .poll(() => panel.getByTestId('panel-error').textContent(), { timeout: REGISTRY_STEP_TIMEOUT_MS })
      .toContain('bridge-plugin-broken@1.0.0 is not a usable bridge plugin')
    expect(existsSync(join(registry.prefix, 'lib', 'node_modules', 'bridge-plugin-broken'))).toBe(false)
    expect((await health()).pluginDetails.map((p) => p.name)).toEqual(['notes'])

    await panel.getByTestId('store-query').fill('zzz-no-such-plugin')
    await panel.getByTestId('store-search').click()
    await expect
      .poll(() => panel.getByTestId('store-results').textContent(), { timeout: REGISTRY_STEP_TIMEOUT_MS })
      .toContain('No plugins found.')
  })

  it('removes the plugin only after the user confirms', async () => {
    await card().getByTestId('remove-plugin').click()
    expect(await card().getByTestId('confirm-remove').textContent()).toContain(
      'Uninstall Demo Notes from this machine?',
    )
    await card().getByTestId('remove-cancel').click()
    expect(await card().getByTestId('confirm-remove').count()).toBe(0)
    expect(existsSync(installedDir())).toBe(true)

    await card().getByTestId('remove-plugin').click()
    await card().getByTestId('remove-confirm').click()
    await expect.poll(() => card().count(), { timeout: REGISTRY_STEP_TIMEOUT_MS }).toBe(0)
    expect(existsSync(installedDir())).toBe(false)
    expect((await health()).pluginDetails).toEqual([])
  })
})

/**
 * A look-alike package trying to take over a reviewed plugin's name and permissions, through a real
 * npm registry (verdaccio on loopback), the real CLI and the real daemon: the user installed and
 * reviewed `bridge-plugin-good` (set to auto); an attacker publishes `@evil/bridge-plugin-good`, which
 * loads under the same plugin name with an adapter of its own. Installed beside the real one, neither
 * runs (whichever won would run under the other's review); installed in its place, its tools stay off
 * until the user reviews it: the review binds the package, not the name.
 */
import { execFile } from 'node:child_process'
import { appendFileSync, existsSync, rmSync } from 'node:fs'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildFixturePlugin, type BuiltPlugin } from '../e2e/support/fixturePlugin'
import { ROOT, startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { startRegistry, type TestRegistry } from '../helpers/registry'
import { runCli } from '../integration/cli/runCli'

interface Health {
  pluginDetails: Array<{ name: string; packageName?: string; tools: string[] }>
  failedPlugins: Array<{ path: string; error: string }>
}

describe('a look-alike package and a reviewed plugin', { timeout: 180_000 }, () => {
  let registry: TestRegistry
  let good: BuiltPlugin
  let configDir: string
  let daemon: RunningDaemon
  let mcp: McpConnection
  const env = () => ({ ...registry.env(), BRIDGE_SKIP_REGISTRY_DISCOVERY: undefined })
  const cli = (args: string[]) => runCli([...args, '--port', String(daemon.port)], configDir, env(), 170_000)
  const health = async () => (await (await daemon.fetch('/health')).json()) as Health
  const goodTools = async () =>
    (await mcp.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('good_'))

  beforeAll(async () => {
    registry = await startRegistry()
    configDir = tempConfigDir()
    good = await buildFixturePlugin({ source: join(ROOT, 'test/fixtures/plugins/good') })
    await registry.publish(good.dir, { name: 'bridge-plugin-good', version: '1.0.0' })
    // The attacker's package: same plugin name, same version, its own adapter.
    appendFileSync(join(good.dir, 'dist', 'adapter.iife.js'), '\n;globalThis.__sendEverythingElsewhere = 1\n')
    await registry.publish(good.dir, { name: '@evil/bridge-plugin-good', version: '1.0.0' })
    daemon = await startDaemon({ configDir, env: env() })
    mcp = await connectMcp(daemon)
    expect((await cli(['plugin', 'install', 'bridge-plugin-good'])).code).toBe(0)
    expect((await cli(['config', 'set', 'plugin-permission.good', 'auto'])).code).toBe(0)
  }, 180_000)
  afterAll(async () => {
    await mcp?.close()
    await daemon?.stop()
    good?.remove()
    await registry?.close()
    if (configDir) rmSync(configDir, { recursive: true, force: true })
  })

  it('runs the reviewed package under its review', async () => {
    await expect.poll(goodTools, { timeout: 20_000 }).toContain('good_echo')
  })

  it('is not installed beside it: the reviewed plugin keeps running, alone, under its review', async () => {
    for (const answer of [
      await cli(['plugin', 'install', '@evil/bridge-plugin-good']),
      // The side panel's install goes the same way.
      await (async () => {
        const ext = await FakeExtension.connect(daemon)
        try {
          const reply = await ext.request('plugin.install', { name: '@evil/bridge-plugin-good' })
          return { code: reply.error ? 1 : 0, stderr: reply.error?.message ?? '' }
        } finally {
          await ext.close()
        }
      })(),
    ]) {
      expect(answer.code).toBe(1)
      expect(answer.stderr).toContain(
        'the plugin "good" is already installed from bridge-plugin-good; @evil/bridge-plugin-good would load under the same name, so nothing was installed',
      )
    }
    expect(existsSync(join(registry.prefix, 'lib', 'node_modules', '@evil'))).toBe(false)
    expect((await daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
    const { pluginDetails } = await health()
    expect(pluginDetails.map((p) => [p.name, p.packageName])).toEqual([['good', 'bridge-plugin-good']])
    expect(await goodTools()).toContain('good_echo')
  })

  it('installed beside it behind bridge’s back, neither runs: whichever won would run under the other’s review', async () => {
    // npm itself (not bridge) puts the look-alike beside the reviewed package.
    await promisify(execFile)(
      'npm',
      ['install', '--global', '--ignore-scripts', '@evil/bridge-plugin-good@1.0.0'],
      {
        env: { ...process.env, ...registry.env() },
      },
    )
    const changed = mcp.nextListChanged()
    expect((await daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
    await changed
    expect(await goodTools()).toEqual([])
    const { pluginDetails, failedPlugins } = await health()
    expect(pluginDetails.filter((p) => p.name === 'good')).toEqual([])
    const errors = failedPlugins.map((f) => f.error).join('\n')
    expect(errors).toContain('@evil/bridge-plugin-good')
    expect(errors).toContain('bridge-plugin-good')
  })

  it('in the reviewed package’s place, the look-alike’s tools stay off until the user reviews it', async () => {
    expect((await cli(['plugin', 'remove', 'bridge-plugin-good', '--confirm'])).code).toBe(0)
    await expect
      .poll(async () => (await health()).pluginDetails.map((p) => [p.name, p.packageName]), {
        timeout: 20_000,
      })
      .toEqual([['good', '@evil/bridge-plugin-good']])
    expect(await goodTools()).toEqual([])
    const called = await mcp.client.callTool({ name: 'good_echo', arguments: { text: 'hi' } })
    expect(called.isError).toBe(true)
    expect(textOf(called)).toMatch(/^\[permission_off\]/)
    const ext = await FakeExtension.connect(daemon)
    try {
      const state = (await ext.request('config.getState', {})).result as {
        plugins: Array<{ name: string; reviewed: boolean; tools: Array<{ permission: string }> }>
      }
      const plugin = state.plugins.find((p) => p.name === 'good')
      expect(plugin?.reviewed).toBe(false)
      expect(new Set(plugin?.tools.map((t) => t.permission))).toEqual(new Set(['off']))
    } finally {
      await ext.close()
    }
  })
})

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, ROOT, startDaemon, type RunningDaemon } from '../../helpers/daemon'

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version

describe.each(ENGINES)('GET /health on the %s engine', (engine) => {
  let daemon: RunningDaemon
  let dev: RunningDaemon
  beforeAll(async () => {
    ;[daemon, dev] = await Promise.all([
      startDaemon({ engine }),
      startDaemon({ engine, args: ['--dev'], env: { BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS: '1' } }),
    ])
  })
  afterAll(async () => {
    await Promise.all([daemon?.stop(), dev?.stop()])
  })

  it('answers only { status: "ok" } without a token', async () => {
    const res = await daemon.fetch('/health', { auth: false })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('answers only { status: "ok" } with a wrong token', async () => {
    const res = await daemon.fetch('/health', { headers: { authorization: `Bearer ${'0'.repeat(64)}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'ok' })
  })

  it('answers every field of the health table with the right types when authenticated', async () => {
    const res = await daemon.fetch('/health')
    expect(res.status).toBe(200)
    const health = (await res.json()) as Record<string, unknown>
    expect(health).toEqual({
      status: 'ok',
      version,
      sdkVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
      mode: 'production',
      httpEngine: engine,
      extensionConnected: false,
      extensionConnections: 0,
      // No extension has asked this daemon to prove itself yet.
      extensionSightings: {},
      mcpClients: 0,
      mcpSessions: 0,
      plugins: 0,
      pluginDetails: [],
      failedPlugins: [],
      toolCount: expect.any(Number),
      browserToolCount: expect.any(Number),
      pluginToolCount: 0,
      browserToolNames: expect.any(Array),
      disabledBrowserTools: expect.any(Array),
      skipPermissions: false,
      sites: [],
      uptime: expect.any(Number),
      reloadCount: 0,
      lastReloadTimestamp: 0,
      lastReloadDurationMs: 0,
      stateSchemaVersion: expect.any(Number),
      discoveryErrors: [],
      auditSummary: {
        totalInvocations: 0,
        successCount: 0,
        failureCount: 0,
        last24h: { total: 0, success: 0, failure: 0 },
        avgDurationMs: 0,
      },
      auditLog: { ok: true, linesWritten: 0, syncs: 0 },
    })
    expect(Number.isInteger(health.uptime)).toBe(true)
    expect(health.uptime).toBeGreaterThanOrEqual(0)
    expect(Number.isInteger(health.stateSchemaVersion)).toBe(true)
    const names = health.browserToolNames as unknown[]
    expect(names.every((name) => typeof name === 'string')).toBe(true)
    expect(health.browserToolCount).toBe(names.length)
    expect(health.toolCount).toBe((health.browserToolCount as number) + (health.pluginToolCount as number))
    expect('fileWatcher' in health).toBe(false)
  })

  it('reports dev mode with its file watcher, and the skip-permissions flag from the environment', async () => {
    const health = (await (await dev.fetch('/health')).json()) as Record<string, unknown>
    expect(health.mode).toBe('dev')
    expect(health.skipPermissions).toBe(true)
    expect(health.fileWatcher).toEqual({
      watchedPlugins: expect.any(Number),
      pendingPlugins: expect.any(Number),
      lastPollAt: expect.toSatisfy((v: unknown) => v === null || Number.isInteger(v)),
      pollDetections: expect.any(Number),
    })
  })

  it('GET /ws-info gives the WebSocket URL built from the bound address', async () => {
    const res = await daemon.fetch('/ws-info', { headers: { host: `localhost:${daemon.port}` } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ wsUrl: `ws://127.0.0.1:${daemon.port}/ws` })
  })
})

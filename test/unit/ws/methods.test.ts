import { describe, expect, it } from 'vitest'
import { createToolCatalog } from '../../../src/catalog/toolCatalog'
import { ClientNotifications, ClientRequests, WsMethods } from '../../../src/protocol'
import { createDaemonPeer } from '../../../src/ws/extensionSockets'
import { createMethodHandlers } from '../../../src/ws/methods'
import { createWorkflowStore } from '../../../src/workflows/store'

const entries = Object.entries(WsMethods) as [string, { role: string; params: unknown; result?: unknown }][]
const requestsOf = (role: string) =>
  entries.filter(([, def]) => def.role === role && def.result !== undefined).map(([name]) => name)
const notificationsOf = (role: string) =>
  entries.filter(([, def]) => def.role === role && def.result === undefined).map(([name]) => name)

function handlers() {
  const catalog = createToolCatalog({
    plugins: () => [],
    failedPlugins: () => [],
    browserTools: () => [],
    permissions: () => ({}),
    skipPermissions: () => false,
  })
  return createMethodHandlers({
    tabStateChanged: () => false,
    workflowToolStep: () => Promise.resolve({ ok: false }),
    config: { catalog, updateConfig: () => Promise.resolve({}), onChanged: () => undefined },
    registry: {
      env: {},
      configDir: '/nowhere',
      config: () => ({ localPlugins: [] }),
      updateConfig: () => Promise.resolve({}),
      reload: () => Promise.resolve(),
      pluginState: () => undefined,
    },
    folders: { allowed: () => [] },
    sites: { catalog, updateConfig: () => Promise.resolve({}), onChanged: () => undefined },
    workflows: { store: createWorkflowStore('/nowhere'), onChanged: () => undefined },
  })
}

describe('the /ws method table', () => {
  it('names a caller, a params schema and, for requests, a result schema for every method', () => {
    expect(entries.length).toBeGreaterThan(20)
    for (const [name, def] of entries) {
      expect([name, def.role]).toEqual([name, expect.stringMatching(/^(daemon|extension)$/)])
      expect(def.params, name).toBeTypeOf('object')
    }
    expect(requestsOf('daemon').sort()).toEqual([
      'plugin.uninstall',
      'tab.origin',
      'tool.dispatch',
      'tool.sinkOrigin',
    ])
  })

  it('has exactly one daemon handler for every request the extension may send', () => {
    expect(Object.keys(handlers()).sort()).toEqual(requestsOf('extension').sort())
    expect(Object.keys(ClientRequests).sort()).toEqual(requestsOf('extension').sort())
    expect(Object.keys(ClientNotifications).sort()).toEqual(notificationsOf('extension').sort())
  })

  it('answers every extension request through its handler and refuses the daemon’s own methods', async () => {
    const sent: { id?: unknown; result?: unknown; error?: { code: number } }[] = []
    const peer = createDaemonPeer({
      send: (text) => sent.push(JSON.parse(text) as (typeof sent)[number]),
      isActive: () => true,
      methods: handlers(),
      notes: {
        ping: () => undefined,
        'tab.syncAll': () => undefined,
        'tool.progress': () => undefined,
        'confirmation.response': () => undefined,
        'plugin.log': () => undefined,
        'sites.report': () => undefined,
      },
      onProblem: () => undefined,
    })
    peer.receive(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'config.getState', params: {} }))
    peer.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tab.stateChanged',
        params: { plugin: 'notes', state: 'closed', tabs: [] },
      }),
    )
    for (const [i, method] of requestsOf('daemon').entries())
      peer.receive(JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method, params: {} }))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(sent.find((m) => m.id === 1)?.result).toMatchObject({ plugins: [], skipPermissions: false })
    expect(sent.find((m) => m.id === 2)?.result).toEqual({ ok: false })
    expect(sent.filter((m) => (m.id as number) >= 10).map((m) => m.error?.code)).toEqual(
      requestsOf('daemon').map(() => -32601),
    )
  })
})

/// <reference types="chrome" />
// The extension code under test uses the chrome.* types; the root project does not load them otherwise.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { BuiltinContext } from '../../../extension/builtins/context'

/**
 * chrome.storage.session as Chrome has it: each get, set and remove answers on a later turn of the
 * event loop, with a copy of what is stored (so two callers that read, change and write at once each
 * write back what they read). `writes` lists the keys and the JSON size of every set, in order.
 */
function fakeSessionStorage() {
  const stored = new Map<string, unknown>()
  const writes: Array<{ keys: string[]; bytes: number }> = []
  const later = () => new Promise<void>((resolve) => setTimeout(resolve, 1))
  const copy = (value: unknown): unknown => (value === undefined ? undefined : structuredClone(value))
  const session = {
    async get(keys: string | null): Promise<Record<string, unknown>> {
      await later()
      const out: Record<string, unknown> = {}
      for (const [key, value] of stored) if (keys === null || key === keys) out[key] = copy(value)
      return out
    },
    async set(items: Record<string, unknown>): Promise<void> {
      await later()
      writes.push({ keys: Object.keys(items), bytes: JSON.stringify(items).length })
      for (const [key, value] of Object.entries(items)) stored.set(key, copy(value))
    },
    async remove(keys: string | string[]): Promise<void> {
      await later()
      for (const key of typeof keys === 'string' ? [keys] : keys) stored.delete(key)
    },
  }
  // The other namespaces the modules touch as they load: event listeners are added, a call finds nothing.
  const member = Object.assign(() => Promise.resolve([]), { addListener: () => undefined })
  const events = new Proxy({}, { get: () => member })
  const namespaces: Record<string | symbol, unknown> = { storage: { session } }
  const api = new Proxy(namespaces, { get: (target, key): unknown => target[key] ?? events })
  return { stored, writes, api }
}

const ctxOf = (client: string, dispatchId: string) =>
  ({ client, dispatchId, progress: () => undefined, log: () => undefined }) as BuiltinContext

let storage: ReturnType<typeof fakeSessionStorage>
beforeEach(() => {
  vi.resetModules()
  storage = fakeSessionStorage()
  vi.stubGlobal('chrome', storage.api)
})
afterEach(() => vi.unstubAllGlobals())

describe('what the extension keeps in session storage', () => {
  it('keeps the origin of every approval shown at once, and hands each out once', async () => {
    // Two approvals arrive together (two calls of one agent, or two agents); a third is taken while
    // they are pinned. A pin lost here would let its call run on whatever its tab shows by then.
    const { pinApprovedTab, takeApprovedOrigin } = await import('../../../extension/builtins/approvedTabs')
    const tab = (id: number, url: string) => ({ id, url, title: url }) as chrome.tabs.Tab
    await pinApprovedTab('c', tab(3, 'https://c.example/'))
    await Promise.all([
      pinApprovedTab('a', tab(1, 'https://bank.example/account')),
      pinApprovedTab('b', tab(2, 'https://mail.example/inbox')),
      takeApprovedOrigin('c'),
    ])
    const [a, b, c] = await Promise.all([
      takeApprovedOrigin('a'),
      takeApprovedOrigin('b'),
      takeApprovedOrigin('c'),
    ])
    expect([a, b, c]).toEqual(['https://bank.example', 'https://mail.example', undefined])
    expect(await takeApprovedOrigin('a')).toBeUndefined()
  })

  it('writes one entry per captured call of an agent recording, and reads them back in order after a restart', async () => {
    const { captureTarget, workflowsHandlers } = await import('../../../extension/builtins/workflows')
    await workflowsHandlers.recordingStart({ name: 'morning', description: '' }, ctxOf('agent', 'start'))
    const before = storage.writes.length
    const calls = 30
    for (let i = 0; i < calls; i++)
      await captureTarget('browser_navigate', {}, ctxOf('agent', `call-${i}`), undefined)
    // Each capture writes its own entry, not the whole recording again: the last as small as the first.
    const captures = storage.writes.slice(before)
    expect(captures).toHaveLength(calls)
    for (const { keys } of captures) expect(keys).toHaveLength(1)
    expect(captures.at(-1)!.bytes).toBeLessThan(captures[0]!.bytes + 16)

    // A new service worker: the module starts again over the same session storage.
    vi.resetModules()
    const again = await import('../../../extension/builtins/workflows')
    const stopped = (await again.workflowsHandlers.recordingStop({}, ctxOf('agent', 'stop'))) as {
      recording: string
      steps: Array<{ dispatchId: string }>
    }
    expect(stopped.recording).toBe('morning')
    expect(stopped.steps.map((s) => s.dispatchId)).toEqual(
      Array.from({ length: calls }, (_, i) => `call-${i}`),
    )
    // The stop leaves nothing of the recording behind.
    expect([...storage.stored.keys()].filter((k) => k.startsWith('bridge.agentRecording'))).toEqual([])
  })

  it('keeps the tab of a call made while its first page still loads (its url not known yet)', async () => {
    const { captureTarget, workflowsHandlers } = await import('../../../extension/builtins/workflows')
    await workflowsHandlers.recordingStart({ name: 'receipt', description: '' }, ctxOf('agent', 'start'))
    const loading = { id: 7, url: '', pendingUrl: 'http://127.0.0.1:8787/receipt' } as chrome.tabs.Tab
    await captureTarget('browser_navigate', {}, ctxOf('agent', 'in-new-tab'), loading)
    const stopped = (await workflowsHandlers.recordingStop({}, ctxOf('agent', 'stop'))) as {
      recording: string
      steps: unknown[]
    }
    expect(stopped.steps).toEqual([
      { dispatchId: 'in-new-tab', tab: { id: 7, url: 'http://127.0.0.1:8787/receipt' } },
    ])
  })

  it('keeps a change asked for while another is under way', async () => {
    const { SessionRecord } = await import('../../../extension/lib/sessionStorage')
    const record = new SessionRecord<Record<string, number>>('bridge.test', () => ({}))
    await Promise.all(Array.from({ length: 20 }, (_, i) => record.update((all) => void (all[`k${i}`] = i))))
    expect(Object.keys(await record.read())).toHaveLength(20)
  })
})

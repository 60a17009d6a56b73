import { describe, expect, it } from 'vitest'
import { assign, createActor, fromPromise } from 'xstate'
import { bridgeSystemMachine } from '../../../machines/bridgeSystemMachine'
import { toolInvocationOf } from '../../../machines/systemActors'
import {
  toolInvocationMachine,
  type ToolInvocationContext,
  type ToolOutcome,
} from '../../../machines/toolInvocationMachine'
import type { AuditEntry } from '../../../src/audit'
import { createToolCatalog } from '../../../src/catalog/toolCatalog'
import { callTool } from '../../../src/calls/toolCalls'

/** The root with a call logic whose tool reports progress twice, then answers, unless cancelled first. */
function start(options: { answer?: boolean } = {}) {
  const audited: AuditEntry[] = []
  const system = createActor(
    bridgeSystemMachine.provide({
      actors: {
        toolInvocation: toolInvocationMachine.provide({
          actions: {
            check: assign({
              verdict: () => ({
                ok: true as const,
                permission: 'auto' as const,
                extensionConnected: true,
                prepare: false,
              }),
            }),
            record: ({ context: input }) =>
              void audited.push({
                tool: input.tool,
                plugin: input.plugin,
                client: input.client,
              } as AuditEntry),
          },
          actors: {
            // The extension answers later, as it does over /ws: its progress reaches the call by its id.
            dispatch: fromPromise<ToolOutcome, ToolInvocationContext>(
              ({ input, system }) =>
                new Promise((resolve) =>
                  setTimeout(() => {
                    const call = toolInvocationOf(system, input.invocationId)
                    call?.send({ type: 'tool.progress', progress: 1, total: 2 })
                    call?.send({ type: 'tool.progress', progress: 2, total: 2, message: 'almost' })
                    if (options.answer !== false)
                      resolve({ ok: true, output: { from: input.client, in: input.session } })
                  }, 0),
                ),
            ),
          },
        }),
      },
    }),
    { input: { config: {} } },
  ).start()
  system.send({ type: 'pluginTab.spawn', plugin: 'browser' })
  const catalog = createToolCatalog({
    plugins: () => [],
    failedPlugins: () => [],
    browserTools: () => [],
    permissions: () => ({}),
    skipPermissions: () => false,
  })
  return { deps: { system, catalog, audit: { record: () => undefined } }, audited }
}

describe('callTool', () => {
  it('answers with the actor’s output and forwards its progress', async () => {
    const { deps, audited } = start()
    const progress: unknown[] = []
    const outcome = await callTool(deps, {
      name: 'browser_list_tabs',
      input: {},
      context: {
        id: 'call-1',
        client: 'claude',
        session: 's-1',
        signal: new AbortController().signal,
        progress: (update) => void progress.push(update),
      },
    })
    expect(outcome).toEqual({ ok: true, output: { from: 'claude', in: 's-1' } })
    expect(progress).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2, message: 'almost' },
    ])
    expect(audited).toEqual([{ tool: 'browser_list_tabs', plugin: 'browser', client: 'claude' }])
  })

  it('cancels a running call when its signal aborts, and ignores an abort after it ended', async () => {
    const { deps } = start({ answer: false })
    const cancel = new AbortController()
    const call = callTool(deps, {
      name: 'browser_list_tabs',
      input: {},
      context: { id: 'call-2', client: 'claude', session: 's-1', signal: cancel.signal },
    })
    await new Promise((resolve) => setTimeout(resolve, 0))
    cancel.abort('session closed')
    expect(await call).toMatchObject({ ok: false, error: { code: 'cancelled' } })
  })

  it('cancels a call whose signal aborted before it started', async () => {
    const { deps, audited } = start({ answer: false })
    const outcome = await callTool(deps, {
      name: 'browser_list_tabs',
      input: {},
      context: {
        id: 'call-3',
        client: 'claude',
        session: 's-1',
        signal: AbortSignal.abort('client cancelled'),
      },
    })
    expect(outcome).toMatchObject({ ok: false, error: { code: 'cancelled' } })
    expect(audited).toHaveLength(1)
  })
})

import { describe, expect, it } from 'vitest'
import { assign, createActor, fromPromise, waitFor, type AnyActorRef } from 'xstate'
import { bridgeSystemMachine, spawnToolInvocation } from '../../../machines/bridgeSystemMachine'
import type { Permission } from '../../../src/protocol'
import { extensionConnectionMachine } from '../../../machines/extensionConnectionMachine'
import type { SystemLookup } from '../../../machines/systemActors'
import {
  toolInvocationMachine,
  type StepResult,
  type ToolInvocationContext,
  type ToolInvocationInput,
  type ToolOutcome,
} from '../../../machines/toolInvocationMachine'

const flush = () => new Promise((resolve) => setTimeout(resolve, 0))

/** A call whose tool answers `output` at once; `permission` decides whether it waits for approval. */
function callLogic(options: { permission?: Permission; recorded?: string[] } = {}) {
  return toolInvocationMachine.provide({
    actions: {
      check: assign({
        verdict: () => ({
          ok: true as const,
          permission: options.permission ?? 'auto',
          extensionConnected: true,
          prepare: false,
        }),
      }),
      record: ({ context }) => void options.recorded?.push(context.invocationId),
    },
    actors: {
      // The extension answers later, as it does over /ws.
      dispatch: fromPromise<ToolOutcome, ToolInvocationContext>(
        ({ input }) =>
          new Promise((resolve) => setTimeout(() => resolve({ ok: true, output: `ran ${input.tool}` }), 0)),
      ),
      reserveApproval: fromPromise<StepResult, ToolInvocationInput>(() => Promise.resolve({ ok: true })),
    },
  })
}

function startSystem(options: { sent?: string[]; call?: ReturnType<typeof callLogic> } = {}) {
  const system = createActor(
    bridgeSystemMachine.provide({
      delays: { drainGrace: 20 },
      actors: {
        extensionConnection: extensionConnectionMachine.provide({
          actions: {
            sendSyncFull: (_, { connectionId }) => void options.sent?.push(`sync.full ${connectionId}`),
          },
        }),
        toolInvocation: options.call ?? callLogic(),
      },
    }),
    { input: { config: {} } },
  )
  system.start()
  return system
}

type System = ReturnType<typeof startSystem>
const find = (system: System, systemId: string): AnyActorRef | undefined => {
  const lookup: SystemLookup = system.system
  return lookup.get(systemId)
}
const callInput = (invocationId: string, plugin = 'notes'): ToolInvocationInput => ({
  invocationId,
  plugin,
  tool: `${plugin}_list`,
  input: {},
  client: 'claude',
  session: 'session-1',
  hasProgressToken: false,
  startedAt: 0,
})

/** The plugin's pluginTab actor, with one ready tab an approval can name. */
function openTab(system: System, plugin = 'notes') {
  system.send({ type: 'pluginTab.spawn', plugin })
  const tab = find(system, `pluginTab:${plugin}`)
  tab?.send({
    type: 'tabs.update',
    state: 'ready',
    tabs: [{ tabId: 7, url: 'https://notes.test/', title: 'Notes', ready: true }],
  })
  return tab
}

describe('bridgeSystemMachine', () => {
  it('runs extensionConnection under the systemId "extensionConnection" with the effects the daemon provides', () => {
    const sent: string[] = []
    const system = startSystem({ sent })
    const connection = find(system, 'extensionConnection')
    expect(connection?.getSnapshot().value).toBe('noConnection')
    connection?.send({ type: 'ws.opened', connectionId: 'c1' })
    expect(connection?.getSnapshot().value).toEqual({ connected: 'alive' })
    expect(sent).toEqual(['sync.full c1'])
    system.send({ type: 'system.stop' })
    expect(find(system, 'extensionConnection')).toBeUndefined()
  })

  it('spawns pluginTab:<plugin> once, found by its systemId, and removes it on pluginTab.stop', () => {
    const system = startSystem()
    system.send({ type: 'pluginTab.spawn', plugin: 'notes' })
    const tab = find(system, 'pluginTab:notes')
    expect(tab?.getSnapshot().context).toEqual({ plugin: 'notes', tabs: [], inFlight: 0 })
    tab?.send({
      type: 'tabs.update',
      state: 'ready',
      tabs: [{ tabId: 7, url: 'https://notes.test/', title: 'Notes', ready: true }],
    })
    // A second spawn of the same plugin keeps the running actor and what it knows.
    system.send({ type: 'pluginTab.spawn', plugin: 'notes' })
    expect(find(system, 'pluginTab:notes')).toBe(tab)
    expect(tab?.getSnapshot().value).toBe('ready')

    system.send({ type: 'pluginTab.stop', plugin: 'notes' })
    expect(tab?.getSnapshot().status).toBe('stopped')
    expect(find(system, 'pluginTab:notes')).toBeUndefined()
  })

  it('runs a call as toolInvocation:<uuid>: a slot from its pluginTab, the outcome as its output, then gone', async () => {
    const recorded: string[] = []
    const system = startSystem({ call: callLogic({ recorded }) })
    const tab = openTab(system)
    const slotsSeen: number[] = []
    tab?.subscribe(
      (snapshot: { context: { inFlight: number } }) => void slotsSeen.push(snapshot.context.inFlight),
    )
    system.send({ type: 'toolInvocation.spawn', input: callInput('call-1') })
    const call = find(system, 'toolInvocation:call-1')
    const outputs: unknown[] = []
    call?.subscribe({ complete: () => void outputs.push(call.getSnapshot().output) })
    await flush()
    expect(outputs).toEqual([{ ok: true, output: 'ran notes_list' }])
    expect(recorded).toEqual(['call-1'])
    // The slot was held while the call ran and given back at its end.
    expect(slotsSeen).toEqual([1, 0])
    expect(find(system, 'toolInvocation:call-1')).toBeUndefined()
  })

  it('refuses a call for a plugin whose tab is not open, through its pluginTab actor, within its spawn', async () => {
    const system = startSystem()
    system.send({ type: 'pluginTab.spawn', plugin: 'notes' })
    const call = spawnToolInvocation(system, callInput('call-1'))
    // Refused at once: the root has removed it already; its actor still gives its output.
    expect(find(system, 'toolInvocation:call-1')).toBeUndefined()
    let output: unknown
    call?.subscribe({ complete: () => void (output = call.getSnapshot().output as unknown) })
    await flush()
    expect(output).toMatchObject({ ok: false, error: { code: 'tab_closed', category: 'tab' } })
  })

  it('reuses child ids between calls, so the root sees a bounded set of end events', async () => {
    const system = startSystem()
    system.send({ type: 'pluginTab.spawn', plugin: 'browser' })
    const ids = new Set<string>()
    for (let i = 0; i < 20; i++) {
      system.send({ type: 'toolInvocation.spawn', input: callInput(`call-${i}`, 'browser') })
      ids.add(find(system, `toolInvocation:call-${i}`)?.id ?? 'missing')
      await flush()
      expect(find(system, `toolInvocation:call-${i}`)).toBeUndefined()
    }
    expect([...ids]).toEqual(['toolInvocation#0'])
    // Two at once take two ids.
    const slow = startSystem({ call: callLogic({ permission: 'ask' }) })
    openTab(slow)
    slow.send({ type: 'toolInvocation.spawn', input: callInput('a') })
    slow.send({ type: 'toolInvocation.spawn', input: callInput('b') })
    expect([find(slow, 'toolInvocation:a')?.id, find(slow, 'toolInvocation:b')?.id]).toEqual([
      'toolInvocation#0',
      'toolInvocation#1',
    ])
  })

  it('tells every plugin tab and every waiting call when the extension is lost', async () => {
    const system = startSystem({ call: callLogic({ permission: 'ask' }) })
    openTab(system)
    system.send({ type: 'toolInvocation.spawn', input: callInput('call-1') })
    const call = find(system, 'toolInvocation:call-1')
    let output: unknown
    call?.subscribe({ complete: () => void (output = call.getSnapshot().output as unknown) })
    await flush()
    expect(call?.getSnapshot().value).toBe('awaitingApproval')
    system.send({ type: 'extension.lost' })
    await flush()
    expect(find(system, 'pluginTab:notes')?.getSnapshot().value).toBe('closed')
    expect(output).toMatchObject({ ok: false, error: { code: 'extension_disconnected' } })
  })

  // A refusing disk never reaches the machine (the audit log reports it and keeps the entry: src/audit).
  it('removes a call whose action throws and runs on', async () => {
    // An effect that throws is a bug: the call's owner sees the error, the root removes the child and runs on.
    const broken = callLogic({ permission: 'ask' }).provide({
      actions: {
        requestApproval: () => {
          throw new Error('approval effect crashed')
        },
      },
    })
    const other = startSystem({ call: broken })
    openTab(other)
    other.send({ type: 'toolInvocation.spawn', input: callInput('call-2') })
    const seen: string[] = []
    find(other, 'toolInvocation:call-2')?.subscribe({
      error: (error: unknown) => void seen.push((error as Error).message),
    })
    await flush()
    expect(seen).toEqual(['approval effect crashed'])
    expect(find(other, 'toolInvocation:call-2')).toBeUndefined()
    expect(other.getSnapshot().status).toBe('active')
    expect(find(other, 'configStore')).toBeDefined()
  })

  it('drains at once when no call runs', () => {
    const system = startSystem()
    system.send({ type: 'system.drain' })
    expect(system.getSnapshot().value).toEqual({ live: 'drained' })
    expect(find(system, 'configStore')).toBeDefined()
  })

  it('lets a call in flight finish while draining, then is drained', async () => {
    const system = startSystem()
    system.send({ type: 'pluginTab.spawn', plugin: 'browser' })
    system.send({ type: 'toolInvocation.spawn', input: callInput('call-1', 'browser') })
    system.send({ type: 'system.drain' })
    expect(system.getSnapshot().matches({ live: 'draining' })).toBe(true)
    const drained = await waitFor(system, (snapshot) => snapshot.matches({ live: 'drained' }))
    expect(drained.context.callsRunning).toBe(0)
    expect(find(system, 'toolInvocation:call-1')).toBeUndefined()
  })

  it('fails a call still waiting when the grace period ends with shutting_down, audited, then is drained', async () => {
    const recorded: string[] = []
    const system = startSystem({ call: callLogic({ permission: 'ask', recorded }) })
    openTab(system)
    system.send({ type: 'toolInvocation.spawn', input: callInput('call-1') })
    const call = find(system, 'toolInvocation:call-1')
    let output: unknown
    call?.subscribe({ complete: () => void (output = call.getSnapshot().output as unknown) })
    await flush()
    system.send({ type: 'system.drain' })
    await waitFor(system, (snapshot) => snapshot.matches({ live: 'drained' }))
    expect(output).toMatchObject({ ok: false, error: { code: 'shutting_down' } })
    expect(recorded).toEqual(['call-1'])
  })
})

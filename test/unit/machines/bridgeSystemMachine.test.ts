import { describe, expect, it } from 'vitest'
import { createActor, fromPromise, type AnyActorRef } from 'xstate'
import { bridgeSystemMachine } from '../../../machines/bridgeSystemMachine'
import { extensionConnectionMachine } from '../../../machines/extensionConnectionMachine'
import { mcpSessionMachine } from '../../../machines/mcpSessionMachine'
import {
  toolInvocationMachine,
  type StepResult,
  type ToolInvocationInput,
} from '../../../machines/toolInvocationMachine'

function startSystem(sent: string[] = []) {
  const system = createActor(
    bridgeSystemMachine.provide({
      actors: {
        extensionConnection: extensionConnectionMachine.provide({
          actions: { sendSyncFull: (_, { connectionId }) => void sent.push(`sync.full ${connectionId}`) },
        }),
      },
    }),
    { input: { config: {} } },
  )
  system.start()
  return system
}

const childIds = (system: ReturnType<typeof startSystem>) => Object.keys(system.getSnapshot().children).sort()
const child = (system: ReturnType<typeof startSystem>, id: string) =>
  (system.getSnapshot().children as Record<string, AnyActorRef | undefined>)[id]

describe('bridgeSystemMachine', () => {
  it('runs extensionConnection under the systemId "extensionConnection" with the effects the daemon provides', () => {
    const sent: string[] = []
    const system = startSystem(sent)
    const connection = system.system.get('extensionConnection') as AnyActorRef | undefined
    expect(connection).toBeDefined()
    expect(connection?.getSnapshot().value).toBe('noConnection')
    connection?.send({ type: 'ws.opened', connectionId: 'c1' })
    expect(connection?.getSnapshot().value).toEqual({ connected: 'alive' })
    expect(sent).toEqual(['sync.full c1'])
    expect(childIds(system)).toEqual(['configStore', 'extensionConnection', 'reload'])
    system.send({ type: 'system.stop' })
    expect(system.system.get('extensionConnection')).toBeUndefined()
  })

  it('spawns pluginTab:<plugin> as a child of the root and removes it on pluginTab.stop', () => {
    const system = startSystem()
    system.send({ type: 'pluginTab.spawn', plugin: 'notes' })
    expect(childIds(system)).toContain('pluginTab:notes')
    const tab = child(system, 'pluginTab:notes')
    expect(tab?.getSnapshot().context).toEqual({ plugin: 'notes', tabs: [], inFlight: 0 })
    tab?.send({
      type: 'tabs.update',
      state: 'ready',
      tabs: [{ tabId: 7, url: 'https://notes.test/', title: 'Notes', ready: true }],
    })
    expect(tab?.getSnapshot().value).toBe('ready')

    // A second spawn of the same plugin replaces the child instead of leaving the first one running.
    system.send({ type: 'pluginTab.spawn', plugin: 'notes' })
    expect(tab?.getSnapshot().status).toBe('stopped')
    expect(child(system, 'pluginTab:notes')?.getSnapshot().value).toBe('closed')

    system.send({ type: 'pluginTab.stop', plugin: 'notes' })
    expect(childIds(system)).not.toContain('pluginTab:notes')
    expect(childIds(system)).toEqual(['configStore', 'extensionConnection', 'reload'])
  })

  it('spawns mcpSession:<uuid> with its own effects and stops it once the session closes', () => {
    const system = startSystem()
    const disposed: string[] = []
    const logic = mcpSessionMachine.provide({
      actions: { disposeSession: (_, { reason }) => void disposed.push(reason) },
    })
    system.send({ type: 'mcpSession.spawn', logic, input: { sessionId: 'session-1', openedAt: 1 } })
    const session = child(system, 'mcpSession:session-1')
    expect(session?.getSnapshot().value).toBe('open')
    session?.send({ type: 'session.close', reason: 'DELETE /mcp' })
    expect(disposed).toEqual(['DELETE /mcp'])
    expect(childIds(system)).not.toContain('mcpSession:session-1')
  })

  it('spawns toolInvocation:<uuid>, stops it on toolInvocation.stop, and a failing call does not fail the root', async () => {
    const system = startSystem()
    const input = {
      invocationId: 'call-1',
      plugin: 'notes',
      tool: 'notes_list',
      input: {},
      hasProgressToken: false,
    }
    const pending = toolInvocationMachine.provide({
      actors: { validate: fromPromise<StepResult, ToolInvocationInput>(() => new Promise(() => undefined)) },
    })
    system.send({ type: 'toolInvocation.spawn', logic: pending, input })
    expect(child(system, 'toolInvocation:call-1')?.getSnapshot().value).toBe('validating')
    system.send({ type: 'toolInvocation.stop', invocationId: 'call-1' })
    expect(childIds(system)).not.toContain('toolInvocation:call-1')

    // An effect that throws is a bug: the call's owner sees the error, the root removes the child and runs on.
    const seen: string[] = []
    const broken = toolInvocationMachine.provide({
      actors: {
        validate: fromPromise<StepResult, ToolInvocationInput>(() =>
          Promise.reject(new Error('validator crashed')),
        ),
      },
      actions: {
        recordOutcome: () => {
          throw new Error('audit effect crashed')
        },
      },
    })
    system.send({ type: 'toolInvocation.spawn', logic: broken, input: { ...input, invocationId: 'call-2' } })
    child(system, 'toolInvocation:call-2')?.subscribe({
      error: (error) => void seen.push((error as Error).message),
    })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(seen).toEqual(['audit effect crashed'])
    expect(childIds(system)).toEqual(['configStore', 'extensionConnection', 'reload'])
    expect(system.getSnapshot().status).toBe('active')
    expect(system.system.get('configStore')).toBeDefined()
  })
})

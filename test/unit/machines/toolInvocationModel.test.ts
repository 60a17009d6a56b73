import { createTestModel } from '@xstate/graph'
import { assign, createMachine } from 'xstate'
import { describe, expect, it } from 'vitest'
import { APPROVAL_TIMEOUT_MS, TOOL_TIMEOUT_MS } from '../../../src/protocol'
import { flush, startInvocation } from './toolInvocationHarness'

/**
 * The spec's view of one tool call (SPEC.md "Tool dispatch sequence", DESIGN.md sections 5-6),
 * written independently of the implementation. Every path through it drives the real machine with
 * fakes and checks that it ends in the same place with exactly one recorded outcome.
 */
type ModelEvent =
  | { type: 'check.invalid' }
  | { type: 'check.off' }
  | { type: 'check.askWithoutExtension' }
  | { type: 'check.ask' }
  | { type: 'check.auto' }
  | { type: 'approval.allowOnce' }
  | { type: 'approval.allowAlways' }
  | { type: 'approval.deny' }
  | { type: 'approval.expired' }
  | { type: 'slot.granted' }
  | { type: 'slot.busy' }
  | { type: 'tool.progress' }
  | { type: 'tool.answered' }
  | { type: 'tool.failed' }
  | { type: 'call.expired' }
  | { type: 'extension.lost' }
  | { type: 'client.cancelled' }

const specModel = createMachine({
  types: {} as {
    context: { code: string | undefined; approved: string | undefined; progressed: boolean }
    events: ModelEvent
  },
  context: { code: undefined, approved: undefined, progressed: false },
  // Validation and the permission check are one synchronous step: the call starts with its verdict.
  initial: 'checking',
  states: {
    checking: {
      on: {
        'check.invalid': { target: 'failed', actions: assign({ code: 'invalid_input' }) },
        'check.off': { target: 'failed', actions: assign({ code: 'permission_off' }) },
        'check.askWithoutExtension': {
          target: 'failed',
          actions: assign({ code: 'extension_not_connected' }),
        },
        'check.ask': 'awaitingApproval',
        'check.auto': 'dispatching',
      },
    },
    awaitingApproval: {
      on: {
        'approval.allowOnce': { target: 'dispatching', actions: assign({ approved: 'once' }) },
        'approval.allowAlways': { target: 'dispatching', actions: assign({ approved: 'always' }) },
        'approval.deny': { target: 'failed', actions: assign({ code: 'approval_denied' }) },
        'approval.expired': { target: 'failed', actions: assign({ code: 'approval_timeout' }) },
        'extension.lost': { target: 'failed', actions: assign({ code: 'extension_disconnected' }) },
        'client.cancelled': { target: 'failed', actions: assign({ code: 'cancelled' }) },
      },
    },
    dispatching: {
      on: {
        'slot.granted': 'running',
        'slot.busy': { target: 'failed', actions: assign({ code: 'plugin_busy' }) },
      },
    },
    running: {
      on: {
        // Once is enough for the graph: it puts every later outcome behind a progress report too.
        'tool.progress': {
          guard: ({ context }) => !context.progressed,
          actions: assign({ progressed: true }),
        },
        'tool.answered': 'succeeded',
        'tool.failed': { target: 'failed', actions: assign({ code: 'tool_error' }) },
        'call.expired': { target: 'failed', actions: assign({ code: 'timeout' }) },
        'extension.lost': { target: 'failed', actions: assign({ code: 'extension_disconnected' }) },
        'client.cancelled': { target: 'failed', actions: assign({ code: 'cancelled' }) },
      },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
  },
})

const ALL_EVENTS: ModelEvent[] = [
  'check.invalid',
  'check.off',
  'check.askWithoutExtension',
  'check.ask',
  'check.auto',
  'approval.allowOnce',
  'approval.allowAlways',
  'approval.deny',
  'approval.expired',
  'slot.granted',
  'slot.busy',
  'tool.progress',
  'tool.answered',
  'tool.failed',
  'call.expired',
  'extension.lost',
  'client.cancelled',
].map((type) => ({ type }) as ModelEvent)

const busy = {
  code: 'plugin_busy' as const,
  message: 'wait for in-flight calls to finish',
  category: 'concurrency',
}
const invalid = { code: 'invalid_input' as const, message: 'limit must be <= 100', category: 'validation' }

describe('toolInvocationMachine (model-based paths)', () => {
  const model = createTestModel(specModel, { events: ALL_EVENTS })
  const paths = model.getSimplePaths()

  it('reaches every outcome of the spec', () => {
    const codes = new Set(paths.map((p) => p.state.context.code ?? 'succeeded'))
    expect([...codes].sort()).toEqual([
      'approval_denied',
      'approval_timeout',
      'cancelled',
      'extension_disconnected',
      'extension_not_connected',
      'invalid_input',
      'permission_off',
      'plugin_busy',
      'succeeded',
      'timeout',
      'tool_error',
    ])
  })

  for (const path of paths)
    it(`follows ${path.description}`, async () => {
      const sut = startInvocation({ manualSteps: true })
      const step = async (run: () => void) => {
        run()
        await flush()
      }
      const expectState = (value: unknown) => expect(sut.state()).toEqual(value)
      await path.test({
        events: {
          'check.invalid': () =>
            step(() =>
              sut.begin({ ok: false, error: invalid }, { permission: 'auto', extensionConnected: true }),
            ),
          'check.off': () =>
            step(() => sut.begin({ ok: true }, { permission: 'off', extensionConnected: true })),
          'check.askWithoutExtension': () =>
            step(() => sut.begin({ ok: true }, { permission: 'ask', extensionConnected: false })),
          'check.ask': () =>
            step(() => sut.begin({ ok: true }, { permission: 'ask', extensionConnected: true })),
          'check.auto': () =>
            step(() => sut.begin({ ok: true }, { permission: 'auto', extensionConnected: true })),
          'approval.allowOnce': () =>
            step(() => sut.actor.send({ type: 'confirmation.response', decision: 'allow_once' })),
          'approval.allowAlways': () =>
            step(() => sut.actor.send({ type: 'confirmation.response', decision: 'allow_always' })),
          'approval.deny': () =>
            step(() => sut.actor.send({ type: 'confirmation.response', decision: 'deny' })),
          'approval.expired': () => step(() => sut.clock.increment(APPROVAL_TIMEOUT_MS)),
          'slot.granted': () => step(() => sut.steps.slot.resolve({ ok: true })),
          'slot.busy': () => step(() => sut.steps.slot.resolve({ ok: false, error: busy })),
          // Most of a timeout passes before each report: the report must re-arm it.
          'tool.progress': () =>
            step(() => {
              sut.clock.increment(TOOL_TIMEOUT_MS - 1)
              sut.actor.send({ type: 'tool.progress', progress: 1 })
            }),
          'tool.answered': () => step(() => void sut.answer({ ok: true, output: 'ok' })),
          'tool.failed': () =>
            step(() => void sut.answer({ ok: false, error: { code: 'tool_error', message: 'no' } })),
          'call.expired': () => step(() => sut.clock.increment(TOOL_TIMEOUT_MS)),
          'extension.lost': () => step(() => sut.actor.send({ type: 'extension.lost' })),
          'client.cancelled': () =>
            step(() => sut.actor.send({ type: 'cancel', reason: 'client cancelled' })),
        },
        states: {
          checking: () => expect(sut.effects).toEqual([]),
          awaitingApproval: () => {
            expectState('awaitingApproval')
            expect(sut.effects).toEqual(['requestApproval'])
          },
          dispatching: (state) => {
            expectState('dispatching')
            expect(sut.effects.includes('persistAlways')).toBe(state.context.approved === 'always')
          },
          running: () => {
            expectState({ running: 'waiting' })
            expect(sut.effects.filter((e) => e === 'announceStart')).toHaveLength(1)
            expect(sut.outcomes).toEqual([])
          },
          succeeded: () => {
            expectState('succeeded')
            expect(sut.outcomes).toEqual([{ ok: true, output: 'ok' }])
          },
          failed: (state) => {
            expectState('failed')
            expect(sut.outcomes).toHaveLength(1)
            expect(sut.outcomes[0]).toMatchObject({ ok: false, error: { code: state.context.code } })
            // A dispatched call always tells the extension it ended and gives its slot back.
            const started = sut.effects.filter((e) => e === 'announceStart').length
            expect(sut.effects.filter((e) => e === 'announceEnd')).toHaveLength(started)
            expect(sut.effects.filter((e) => e === 'releaseSlot')).toHaveLength(started)
          },
        },
      })
    })
})

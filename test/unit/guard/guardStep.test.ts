import { describe, expect, it } from 'vitest'
import type { ToolInvocationInput } from '../../../machines/toolInvocationTypes'
import type { CatalogTool } from '../../../src/catalog/toolCatalog'
import { createFlowGuard } from '../../../src/guard/flowGuard'
import { createGuardStep } from '../../../src/guard/guardStep'
import type { ExtensionPort } from '../../../src/ws/extensionSockets'

// The order that keeps the guard whole while fingerprints are taken off the answer's path: what a
// client was handed is queued before the answer leaves, and a sink check of that client takes the
// queue first. However slow the fingerprinting (here: its deferred turns never come), a secret read
// and sent on in the very next call, in the same tick, is caught.
const A = 'http://127.0.0.1:4001'
const B = 'http://127.0.0.1:4002'
const TOKEN = 'sk_live_9fQ2xT7bLm4Rz8WkP3vN'
const FILLER = Array.from({ length: 4000 }, (_, i) => `- paragraph [ref=e${i}]: row ${i} of the inbox`).join(
  '\n',
)

const callOf = (invocationId: string, tool: string, input: unknown): ToolInvocationInput => ({
  invocationId,
  plugin: 'browser',
  tool,
  input,
  client: 'agent',
  session: 's1',
  hasProgressToken: false,
  startedAt: Date.now(),
})
const toolOf = (fullName: string) => ({ fullName, plugin: 'browser', key: fullName }) as CatalogTool
/** The extension: every call would act on a tab of B. */
const portOnB = {
  request: () => ({ id: 1, result: Promise.resolve({ origin: B }) }),
} as unknown as ExtensionPort

function stepWith(deferred: Array<() => void>) {
  const guard = createFlowGuard({ defer: (slice) => void deferred.push(slice) })
  const step = createGuardStep({
    guard,
    settings: () => ({ mode: 'block' }),
    saveSettings: () => Promise.resolve(),
    originsOf: () => undefined,
  })
  return { guard, step }
}

/** A snapshot of A's page ends and is handed to the client, the token at the end of 100 KB of rows. */
function readOnA(step: ReturnType<typeof createGuardStep>) {
  const read = callOf('read-1', 'browser_snapshot', {})
  step.finished(read, { ok: true, output: `${FILLER}\n- text: key ${TOKEN}`, origins: [A] } as never)
  step.handedOut('read-1', { content: [{ type: 'text', text: `${FILLER}\n- text: key ${TOKEN}` }] })
}

describe('the guard step while fingerprints are still being taken', () => {
  it('catches a secret sent on in the same tick as its read was handed out, no fingerprinting turn having run', async () => {
    const deferred: Array<() => void> = []
    const { guard, step } = stepWith(deferred)
    readOnA(step)
    // Nothing was fingerprinted on the answer's path: the work waits for a turn that has not come.
    expect(guard.busy).toBe(true)
    expect(deferred).toHaveLength(1)

    const send = callOf('send-1', 'browser_type', { selector: '#to', text: `key ${TOKEN}` })
    const tool = toolOf('browser_type')
    expect(step.screen(send, tool)).toBe(true)
    expect(guard.busy).toBe(false)
    const verdict = await step.decide(send, tool, portOnB)
    expect(verdict).toMatchObject({ ok: false, error: { code: 'flow_blocked' } })
    expect(!verdict.ok && verdict.error.message).toContain(`${A} to ${B}`)
  })

  it('a sink check of another client leaves the work queued; the reader’s own takes it', () => {
    const deferred: Array<() => void> = []
    const { guard, step } = stepWith(deferred)
    readOnA(step)
    const other = { ...callOf('send-2', 'browser_type', { text: `key ${TOKEN}` }), client: 'other' }
    expect(step.screen(other, toolOf('browser_type'))).toBe(false)
    expect(guard.busy).toBe(true)
    expect(step.screen(callOf('send-3', 'browser_type', { text: TOKEN }), toolOf('browser_type'))).toBe(true)
  })
})

import { describe, expect, it } from 'vitest'
import { flush, startInvocation } from './toolInvocationHarness'

const SECOND = 1000
const MINUTE = 60 * SECOND

describe('toolInvocationMachine', () => {
  it('runs an auto tool: dispatch, start, answer, end, one outcome', async () => {
    const t = startInvocation()
    await flush()
    expect(t.state()).toEqual({ running: 'waiting' })
    await t.answer({ ok: true, output: { notes: [] } })
    // The audit entry is an action of the final state: the call has ended by the time the answer is taken.
    expect(t.state()).toBe('succeeded')
    expect(t.actor.getSnapshot().output).toEqual({ ok: true, output: { notes: [] } })
    expect(t.outcomes).toEqual([{ ok: true, output: { notes: [] } }])
    expect(t.effects).toEqual(['announceStart', 'dispatch', 'releaseSlot', 'announceEnd', 'recordOutcome'])
  })

  it('fails with the validation error before checking anything else', async () => {
    const error = {
      code: 'invalid_input' as const,
      message: 'input.limit must be <= 100',
      category: 'validation',
    }
    const t = startInvocation({ validate: { ok: false, error } })
    await flush()
    expect(t.outcomes).toEqual([{ ok: false, error }])
    expect(t.effects).toEqual(['recordOutcome'])
  })

  it('fails an off tool with permission_off and a hint', async () => {
    const t = startInvocation({ permission: { permission: 'off', extensionConnected: true } })
    await flush()
    expect(t.outcomes[0]).toMatchObject({
      ok: false,
      error: { code: 'permission_off', category: 'permission' },
    })
    expect(JSON.stringify(t.outcomes[0])).toContain('side panel')
    expect(t.effects).toEqual(['recordOutcome'])
  })

  it('fails an ask tool at once when no extension is connected', async () => {
    const t = startInvocation({ permission: { permission: 'ask', extensionConnected: false } })
    await flush()
    expect(t.outcomes[0]).toMatchObject({ ok: false, error: { code: 'extension_not_connected' } })
    expect(t.effects).not.toContain('requestApproval')
  })

  describe('approval', () => {
    const ask = { permission: { permission: 'ask' as const, extensionConnected: true } }

    it('fails before anyone is asked when the approval cannot be prepared (no ready tab, queue full)', async () => {
      const error = {
        code: 'approval_queue_full' as const,
        message: '20 calls of claude already wait for approval',
        category: 'concurrency',
      }
      const t = startInvocation({ ...ask, approval: { ok: false, error } })
      await flush()
      expect(t.state()).toBe('failed')
      expect(t.outcomes).toEqual([{ ok: false, error }])
      expect(t.effects).toEqual(['recordOutcome'])
    })

    it('keeps the tab chosen before the approval, for the approval and the dispatch', async () => {
      const tab = { tabId: 9, title: 'My notes', url: 'http://127.0.0.1/mine' }
      const t = startInvocation({ ...ask, approval: { ok: true, tab } })
      await flush()
      expect(t.state()).toEqual('awaitingApproval')
      expect(t.actor.getSnapshot().context.tab).toEqual(tab)
      expect(t.releases).toEqual([])
      t.actor.send({ type: 'confirmation.response', decision: 'allow_once' })
      await flush()
      expect(t.state()).toEqual({ running: 'waiting' })
      expect(t.actor.getSnapshot().context.tab).toEqual(tab)
      // The call's place in the approval queue is given back as soon as the user answered.
      expect(t.releases).toEqual([JSON.stringify('awaitingApproval')])
    })

    it('gives its approval-queue place back when cancelled while the approval is prepared', async () => {
      const t = startInvocation({ ...ask, holdApproval: true })
      await flush()
      expect(t.state()).toBe('choosingTab')
      t.actor.send({ type: 'cancel', reason: 'client cancelled' })
      t.steps.approval.resolve({ ok: true })
      await flush()
      expect(t.state()).toBe('failed')
      expect(t.releases).toEqual([JSON.stringify('choosingTab')])
      expect(t.effects).not.toContain('requestApproval')
    })

    it('dispatches after allow_once', async () => {
      const t = startInvocation(ask)
      await flush()
      expect(t.state()).toEqual('awaitingApproval')
      expect(t.effects).toEqual(['requestApproval'])
      t.actor.send({ type: 'confirmation.response', decision: 'allow_once' })
      await flush()
      expect(t.state()).toEqual({ running: 'waiting' })
      expect(t.effects).not.toContain('persistAlways')
    })

    it('persists auto after allow_always and dispatches', async () => {
      const t = startInvocation(ask)
      await flush()
      t.actor.send({ type: 'confirmation.response', decision: 'allow_always' })
      await flush()
      expect(t.effects).toEqual(['requestApproval', 'persistAlways', 'announceStart', 'dispatch'])
    })

    it('takes an answer given in the client as the approval, tells its client the approval opened and closed, and the side panel drops its card', async () => {
      const t = startInvocation(ask)
      await flush()
      expect(t.approvals).toEqual(['opened:call-1'])
      // "Always" from the client only answers a flow question: a tool's "always" stays in the side panel.
      t.actor.send({ type: 'approval.answeredInClient', decision: 'allow_always' })
      await flush()
      expect(t.state()).toEqual('awaitingApproval')
      t.actor.send({ type: 'approval.answeredInClient', decision: 'allow_once' })
      await flush()
      expect(t.state()).toEqual({ running: 'waiting' })
      expect(t.effects).toEqual([
        'requestApproval',
        'cancelApproval:answered in the MCP client',
        'announceStart',
        'dispatch',
      ])
      expect(t.approvals).toEqual(['opened:call-1', 'closed'])
      // Once decided, a second answer (the side panel's, the client's) changes nothing.
      t.actor.send({ type: 'approval.answeredInClient', decision: 'deny' })
      t.actor.send({ type: 'confirmation.response', decision: 'deny' })
      await flush()
      expect(t.state()).toEqual({ running: 'waiting' })
    })

    it('fails with approval_denied after deny', async () => {
      const t = startInvocation(ask)
      await flush()
      t.actor.send({ type: 'confirmation.response', decision: 'deny' })
      expect(t.outcomes).toEqual([
        {
          ok: false,
          error: { code: 'approval_denied', message: 'the user denied the call', category: 'permission' },
        },
      ])
      expect(t.effects).not.toContain('dispatch')
    })

    it('fails with approval_timeout after 5 minutes and withdraws the request', async () => {
      const t = startInvocation(ask)
      await flush()
      t.clock.increment(5 * MINUTE - 1)
      expect(t.outcomes).toEqual([])
      t.clock.increment(1)
      expect(t.outcomes[0]).toMatchObject({ ok: false, error: { code: 'approval_timeout' } })
      expect(t.effects).toContain('cancelApproval:timeout')
    })

    it('reports "waiting for approval" every 10 s only when the client gave a progress token', async () => {
      const withToken = startInvocation({ ...ask, hasProgressToken: true })
      const without = startInvocation(ask)
      await flush()
      for (let i = 0; i < 3; i++) {
        withToken.clock.increment(10 * SECOND)
        without.clock.increment(10 * SECOND)
      }
      expect(withToken.effects.filter((e) => e === 'reportWaitingForApproval')).toHaveLength(3)
      expect(without.effects.filter((e) => e === 'reportWaitingForApproval')).toHaveLength(0)
    })

    it('fails with extension_disconnected when the extension goes away while waiting', async () => {
      const t = startInvocation(ask)
      await flush()
      t.actor.send({ type: 'extension.lost' })
      expect(t.outcomes[0]).toMatchObject({ ok: false, error: { code: 'extension_disconnected' } })
    })
  })

  it('fails with the dispatch check error (busy, tab state) without holding a slot', async () => {
    const error = {
      code: 'plugin_busy' as const,
      message: 'wait for in-flight calls to finish',
      category: 'concurrency',
    }
    const t = startInvocation({ slot: { ok: false, error } })
    await flush()
    expect(t.outcomes).toEqual([{ ok: false, error }])
    expect(t.effects).toEqual(['recordOutcome'])
  })

  describe('timeouts', () => {
    it('fails with timeout when no answer or progress arrives for 30 s, and drops a late answer', async () => {
      const t = startInvocation()
      await flush()
      t.clock.increment(30 * SECOND - 1)
      expect(t.state()).toEqual({ running: 'waiting' })
      t.clock.increment(1)
      expect(t.outcomes).toEqual([
        {
          ok: false,
          error: {
            code: 'timeout',
            message: 'the tool did not answer or report progress in time',
            category: 'timeout',
          },
        },
      ])
      // Leaving `running` stopped the dispatch: its answer, should one still come, is dropped.
      expect(t.effects).toEqual([
        'announceStart',
        'dispatch',
        'releaseSlot',
        'announceEnd',
        'recordOutcome',
        'dispatchAborted',
      ])
      await t.answer({ ok: true, output: 'late' })
      expect(t.outcomes).toHaveLength(1)
    })

    it('re-arms the 30 s timeout on every progress report and forwards progress only with a token', async () => {
      const t = startInvocation({ hasProgressToken: true })
      await flush()
      for (let i = 1; i <= 4; i++) {
        t.clock.increment(25 * SECOND)
        t.actor.send({ type: 'tool.progress', progress: i, total: 10, message: `step ${i}` })
      }
      expect(t.state()).toEqual({ running: 'waiting' })
      await t.answer({ ok: true, output: 'done after 100 s' })
      expect(t.outcomes).toEqual([{ ok: true, output: 'done after 100 s' }])
      expect(t.progress).toHaveLength(4)
      expect(t.effects).toEqual(['announceStart', 'dispatch', 'releaseSlot', 'announceEnd', 'recordOutcome'])
      expect(t.progress[3]).toEqual({ progress: 4, total: 10, message: 'step 4' })

      const silent = startInvocation()
      await flush()
      silent.actor.send({ type: 'tool.progress', progress: 1 })
      expect(silent.progress).toEqual([])
    })

    it('passes on only its own plugin’s log entries, and only while it runs', async () => {
      const t = startInvocation()
      const entry = (message: string) => ({
        level: 'info' as const,
        logger: 'plugin:notes',
        data: { message },
      })
      t.actor.send({ type: 'tool.log', plugin: 'notes', entry: entry('before running') })
      await flush()
      t.actor.send({ type: 'tool.log', plugin: 'notes', entry: entry('own') })
      t.actor.send({ type: 'tool.log', plugin: 'mail', entry: entry('another plugin’s') })
      await t.answer({ ok: true, output: 'done' })
      t.actor.send({ type: 'tool.log', plugin: 'notes', entry: entry('after the end') })
      expect(t.logs).toEqual([entry('own')])
    })

    it('fails at the 5 minute hard cap even when progress keeps coming', async () => {
      const t = startInvocation()
      await flush()
      for (let elapsed = 0; elapsed < 5 * MINUTE - 20 * SECOND; elapsed += 20 * SECOND) {
        t.clock.increment(20 * SECOND)
        t.actor.send({ type: 'tool.progress', progress: elapsed })
      }
      expect(t.outcomes).toEqual([])
      t.clock.increment(20 * SECOND)
      expect(t.outcomes[0]).toMatchObject({
        ok: false,
        error: { code: 'timeout', message: 'the tool ran past the maximum duration of a call' },
      })
    })
  })

  it('fails a running call with extension_disconnected when the extension goes away', async () => {
    const t = startInvocation()
    await flush()
    t.actor.send({ type: 'extension.lost' })
    expect(t.outcomes[0]).toMatchObject({
      ok: false,
      error: { code: 'extension_disconnected', category: 'connection' },
    })
    expect(t.effects).toContain('releaseSlot')
    expect(t.effects).toContain('announceEnd')
  })

  it('passes a tool error from the extension through as the outcome', async () => {
    const t = startInvocation()
    await flush()
    const error = { code: 'tool_error' as const, message: 'not logged in', category: 'auth' }
    await t.answer({ ok: false, error })
    expect(t.outcomes).toEqual([{ ok: false, error }])
  })

  it('records a cancelled call once, from any state', async () => {
    const early = startInvocation({
      permission: { permission: 'ask', extensionConnected: true },
      holdApproval: true,
    })
    early.actor.send({ type: 'cancel', reason: 'session closed' })
    expect(early.outcomes).toEqual([
      {
        ok: false,
        error: { code: 'cancelled', message: 'the client cancelled the call', category: 'connection' },
      },
    ])
    const running = startInvocation()
    await flush()
    running.actor.send({ type: 'cancel', reason: 'client cancelled' })
    running.actor.send({ type: 'cancel', reason: 'again' })
    expect(running.outcomes).toHaveLength(1)
    expect(running.effects).toContain('releaseSlot')
  })
})

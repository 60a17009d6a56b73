import { describe, expect, it } from 'vitest'
import { approvalElicitation, createRequestStates, decisionOf } from '../../../src/mcp/clientApproval'
import { sessionQuestion } from '../../../src/mcp/sessionApprovals'
import type { ApprovalRequest } from '../../../src/protocol'

const request: ApprovalRequest = {
  id: 'call-1',
  plugin: 'notes',
  tool: 'notes_delete_note',
  params: { id: 7 },
  expiresAt: Date.now() + 60_000,
  client: 'claude',
  tab: { tabId: 3, title: 'Notes\u202e evil', url: 'https://notes.example/\nSYSTEM' },
}

describe('approvalElicitation', () => {
  it('names the client, tool, plugin, tab and arguments, with page text neutralized', () => {
    const form = approvalElicitation(request)
    expect(form.mode).toBe('form')
    expect(form.message).toContain('allow "claude" to run notes_delete_note (plugin notes)')
    expect(form.message).toContain('{"id":7}')
    expect(form.message).toContain('⟨U+202E⟩')
    expect(form.message).not.toMatch(/[\u202e\n]/)
    expect(form.requestedSchema).toMatchObject({ required: ['decision'] })
    expect(form.message).not.toContain('destructive')
  })

  it('says first that a tool declared destructive may delete or overwrite data', () => {
    const form = approvalElicitation({
      ...request,
      annotations: { readOnlyHint: false, destructiveHint: true },
    })
    expect(form.message).toMatch(
      /^bridge: a destructive tool \(it declares that it may delete or overwrite data\): allow "claude" to run notes_delete_note/,
    )
  })
})

describe('decisionOf', () => {
  it('reads allow once, deny and decline; cancel and nonsense decide nothing', () => {
    expect(decisionOf({ action: 'accept', content: { decision: 'allow_once' } })).toBe('allow_once')
    expect(decisionOf({ action: 'accept', content: { decision: 'deny' } })).toBe('deny')
    expect(decisionOf({ action: 'decline' })).toBe('deny')
    expect(decisionOf({ action: 'cancel' })).toBeUndefined()
    expect(decisionOf({ action: 'accept', content: { decision: 'sometimes' } })).toBeUndefined()
    expect(decisionOf(42)).toBeUndefined()
  })

  it('reads allow always (the call takes it only for a flow question)', () => {
    expect(decisionOf({ action: 'accept', content: { decision: 'allow_always' } })).toBe('allow_always')
  })

  it('puts a flow question in words with its masked value and both sites, and offers always allow for it', () => {
    const flow = {
      flows: [
        { from: 'http://a.test', to: 'http://b.test', kind: 'email' as const, masked: 'j***@corp.example' },
      ],
    }
    const form = approvalElicitation({
      id: '1',
      plugin: 'browser',
      tool: 'browser_navigate',
      params: { url: 'http://b.test/?to=jane@corp.example' },
      expiresAt: Date.now() + 60_000,
      client: 'agent',
      flow,
    })
    expect(form.message).toContain('an e-mail address j***@corp.example from http://a.test to http://b.test')
    const options = (
      form.requestedSchema.properties as { decision: { oneOf: { const: string; title: string }[] } }
    ).decision.oneOf
    expect(options.map((o) => o.const)).toEqual(['allow_once', 'allow_always', 'deny'])
    expect(options[1]?.title).toBe('Always allow http://a.test -> http://b.test for agent')
  })
})

describe('requestStates', () => {
  it('reads back what it issued, and nothing altered or foreign', () => {
    const states = createRequestStates()
    const text = states.issue({ call: 'call-1', client: 'claude', tool: 'notes_delete_note' })
    expect(states.read(text)).toEqual({ call: 'call-1', client: 'claude', tool: 'notes_delete_note' })
    const [body, mac] = text.split('.')
    const forged = Buffer.from(JSON.stringify({ call: 'call-2', client: 'claude', tool: 'x' })).toString(
      'base64url',
    )
    expect(states.read(`${forged}.${mac}`)).toBeUndefined()
    expect(states.read(`${body}.${mac}x`)).toBeUndefined()
    expect(createRequestStates().read(text)).toBeUndefined()
    expect(states.read(17)).toBeUndefined()
  })
})

describe('sessionQuestion', () => {
  const sent = () => {
    const events: string[] = []
    return { events, send: (event: string) => void events.push(event) }
  }

  it('asks once the approval opens, hands the first answer to the call, and never one after', () => {
    const out = sent()
    const question = sessionQuestion(out.send)
    const decided: string[] = []
    expect(question.asks('bridge-approval-call-1')).toBe(false)
    question.open(request, (decision) => decided.push(decision))
    expect(out.events[0]).toContain('"method":"elicitation/create"')
    expect(out.events[0]).toContain('"id":"bridge-approval-call-1"')
    expect(question.asks('bridge-approval-call-1')).toBe(true)
    expect(question.asks('bridge-approval-call-2')).toBe(false)
    question.answered({ action: 'accept', content: { decision: 'allow_once' } }, true)
    question.answered({ action: 'accept', content: { decision: 'deny' } }, true)
    expect(decided).toEqual(['allow_once'])
    // Answered: its closing withdraws nothing.
    question.close()
    expect(out.events).toHaveLength(1)
  })

  it('withdraws a question decided elsewhere, and takes no answer the client may no longer give', () => {
    const out = sent()
    const decided: string[] = []
    const question = sessionQuestion(out.send)
    question.open(request, (decision) => decided.push(decision))
    question.close()
    expect(out.events[1]).toContain('"method":"notifications/cancelled"')
    expect(out.events[1]).toContain('the approval was decided elsewhere')
    question.answered({ action: 'accept', content: { decision: 'allow_once' } }, true)
    const off = sessionQuestion(out.send)
    off.open(request, (decision) => decided.push(decision))
    off.answered({ action: 'accept', content: { decision: 'allow_once' } }, false)
    expect(decided).toEqual([])
  })
})

import { describe, expect, it } from 'vitest'
import { createApprovalBroker } from '../../../src/mcp/approvalBroker'
import {
  approvalElicitation,
  createRequestStates,
  decisionOf,
  type ApprovalRequest,
} from '../../../src/mcp/clientApproval'

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

  it('reads allow always, which the broker takes only for a flow question', () => {
    expect(decisionOf({ action: 'accept', content: { decision: 'allow_always' } })).toBe('allow_always')
    const decided: string[] = []
    const broker = createApprovalBroker({ decide: (id, decision) => decided.push(`${id} ${decision}`) })
    const base = {
      plugin: 'browser',
      tool: 'browser_navigate',
      params: {},
      expiresAt: Date.now() + 60_000,
      client: 'c',
    }
    broker.opened({ ...base, id: 'tool-call' })
    expect(broker.answer('tool-call', 'allow_always')).toBe(false)
    const flow = {
      flows: [{ from: 'http://a', to: 'http://b', kind: 'email' as const, masked: 'j***@x.example' }],
    }
    broker.opened({ ...base, id: 'flow-call', flow })
    expect(broker.answer('flow-call', 'allow_always')).toBe(true)
    expect(decided).toEqual(['flow-call allow_always'])
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

describe('approvalBroker', () => {
  it('reports an open request to a watcher, decides once, and never after it closed', () => {
    const decided: string[] = []
    const broker = createApprovalBroker({ decide: (id, decision) => decided.push(`${id}:${decision}`) })
    broker.opened(request)
    const seen: string[] = []
    broker.watch('call-1', { opened: (r) => seen.push(`opened ${r.id}`), closed: () => seen.push('closed') })
    expect(seen).toEqual(['opened call-1'])
    expect(broker.answer('call-1', 'allow_once')).toBe(true)
    expect(broker.answer('call-1', 'deny')).toBe(false)
    expect(decided).toEqual(['call-1:allow_once'])
    expect(seen).toEqual(['opened call-1', 'closed'])
    broker.opened({ ...request, id: 'call-2' })
    broker.closed('call-2')
    expect(broker.answer('call-2', 'allow_once')).toBe(false)
  })
})

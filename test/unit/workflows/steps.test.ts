import { describe, expect, it } from 'vitest'
import type { Target } from '../../../src/protocol/workflow'
import { postConditionOf } from '../../../src/workflows/postCondition'
import { inputSchemaOf, planInWords, resolvePlan } from '../../../src/workflows/plan'
import { buildSteps, type SeenCall } from '../../../src/workflows/steps'
import { WORKFLOW_FORMAT_VERSION, parseWorkflow, type Workflow } from '../../../src/workflows/format'

const call = (id: string, tool: string, input: Record<string, unknown>, text = ''): SeenCall => ({
  id,
  tool,
  plugin: 'browser',
  input,
  text,
})

/** Each call's captured element, by the call's id. */
const targets = (entries: [string, Target][]) =>
  new Map(entries.map(([id, target]) => [id, { target }] as const))

describe('a recording becomes steps and variables', () => {
  const signals = targets([
    ['2', { label: 'Email', css: '#email', role: 'textbox', name: 'Email' }],
    ['3', { label: 'Password', css: '#pw', role: 'textbox', name: 'Password', secret: true }],
    ['4', { role: 'button', name: 'Sign in', css: '#go' }],
    ['5', { label: 'Search', css: '#q' }],
    ['6', { label: 'API key', css: '#key' }],
  ])
  const calls = [
    call(
      '1',
      'browser_navigate',
      { url: 'http://127.0.0.1:9/login' },
      'URL: http://127.0.0.1:9/login\nTitle: Log in\n- heading "Log in" [level=1]',
    ),
    call('2', 'browser_type', { ref: 'e1', text: 'ada@example.com' }),
    call('3', 'browser_type', { ref: 'e2', text: 'correct horse 7' }),
    call(
      '4',
      'browser_click',
      { ref: 'e3' },
      'URL: http://127.0.0.1:9/home?s=1\nTitle: Home correct horse 7\n- heading "Welcome, ada@example.com" [level=1]\n- text: correct horse 7',
    ),
    call('9', 'browser_get_cookies', {}),
    call(
      '5',
      'browser_type',
      { ref: 'e4', text: 'shoes', submit: true },
      'Changed on the page (new and changed lines, under their parents):\n- main:\n - heading "Results for shoes" [level=2]\n - textbox "Search" [ref=e4]: shoes',
    ),
    call('6', 'browser_type', { ref: 'e5', text: 'sk-live-123456' }),
  ]

  it('turns typed values into variables, a password field and a value read from a cookie into secrets with no value', () => {
    const built = buildSteps(calls, signals, new Set(['sk-live-123456']))
    expect(built.variables).toEqual([
      { name: 'email', secret: false, default: 'ada@example.com' },
      { name: 'password', secret: true },
      { name: 'search', secret: false, default: 'shoes' },
      { name: 'apiKey', secret: true },
    ])
    expect(built.steps.map((s) => s.action)).toEqual(['navigate', 'type', 'type', 'click', 'type', 'type'])
    expect(built.steps[2]).toMatchObject({ text: '{{password}}' })
    expect(built.steps[5]).toMatchObject({ text: '{{apiKey}}' })
    const text = JSON.stringify(built)
    expect(text).not.toContain('correct horse 7')
    expect(text).not.toContain('sk-live-123456')
  })

  it('keeps the settle-and-diff as post-conditions, speaking of variables', () => {
    const built = buildSteps(calls, signals, new Set())
    expect(built.steps[0]!.post).toEqual({
      url: 'http://127.0.0.1:9/login',
      title: 'Log in',
      appeared: ['Log in'],
    })
    // The page echoed the password into the title: that line is dropped, the heading speaks of {{email}}.
    expect(built.steps[3]!.post).toEqual({ url: 'http://127.0.0.1:9/home', appeared: ['Welcome, {{email}}'] })
    expect(built.steps[4]!.post).toEqual({ appeared: ['Results for {{search}}'] })
  })

  it('makes what the agent read a read step: a find by its text or pattern, an element or the page by get_text', () => {
    const built = buildSteps(
      [
        call('1', 'browser_find', { text: 'Balance' }),
        call('2', 'browser_find', { regex: 'total: \\d+' }),
        call('3', 'browser_get_text', { ref: 'e7' }),
        call('4', 'browser_get_text', {}),
        call('5', 'browser_get_text', { ref: 'e9' }),
        call('6', 'browser_snapshot', {}),
      ],
      targets([['3', { role: 'region', name: 'Account', css: '#account' }]]),
      new Set(),
    )
    // Call 5's element was not captured: no step is made up for it.
    expect(built.steps).toEqual([
      { action: 'read', text: 'Balance' },
      { action: 'read', pattern: 'total: \\d+' },
      { action: 'read', target: { role: 'region', name: 'Account', css: '#account' } },
      { action: 'read' },
    ])
    expect(built.skipped).toEqual([])
  })

  it('takes what changed, not the containers that only place it (a region whose content changed), but a dialog that opened', () => {
    const diff = (lines: string[]) =>
      postConditionOf(['Changed on the page (1 added, 0 removed):', ...lines].join('\n'))
    expect(diff(['- main:', ' - region "Message":', '  - text: Archived.'])).toEqual({
      appeared: ['Archived.'],
    })
    expect(diff(['- main:', ' - region "Message":'])).toBeUndefined()
    // Emptied: the region's line is a leaf now, still named by its aria-label, showing nothing.
    expect(diff(['- main:', ' - region "Message"', ' - status: Archived: Budget'])).toEqual({
      appeared: ['Archived: Budget'],
    })
    expect(diff(['- iframe "Gift note" [ref=e2]:', '  - textbox "Note" [ref=f1e1]'])).toBeUndefined()
    expect(diff(['- dialog "Delete drafts?":', ' - button "Delete" [ref=e4]'])).toEqual({
      appeared: ['Delete drafts?', 'Delete'],
    })
  })

  it('reads a dialog the action opened from its result', () => {
    expect(
      postConditionOf(
        'A dialog opened; the page waits for it.\n[open dialogs: [{"tabId":1,"type":"confirm","message":"Send it?","answerWith":"browser_handle_dialog"}]]',
      ),
    ).toEqual({ dialog: { type: 'confirm', message: 'Send it?' } })
  })
})

describe('a workflow as a tool', () => {
  const workflow: Workflow = {
    version: WORKFLOW_FORMAT_VERSION,
    name: 'search',
    description: 'Search',
    permission: 'ask',
    recordedBy: 'agent',
    createdAt: '2026-11-27T10:00:00.000Z',
    updatedAt: '2026-11-27T10:00:00.000Z',
    variables: [
      { name: 'query', secret: false, default: 'shoes' },
      { name: 'password', secret: true },
    ],
    steps: [
      { action: 'navigate', url: 'http://127.0.0.1:9/' },
      { action: 'type', target: { role: 'textbox', name: 'Password' }, text: '{{password}}' },
      {
        action: 'type',
        target: { role: 'searchbox', name: 'Search' },
        text: '{{query}}',
        submit: true,
        post: { appeared: ['Results for {{query}}'] },
      },
    ],
    history: [],
  }

  it('lists its variables as input, recorded values as defaults, secrets required', () => {
    expect(parseWorkflow(workflow).ok).toBe(true)
    expect(inputSchemaOf(workflow)).toMatchObject({
      properties: { query: { type: 'string', default: 'shoes' }, password: { type: 'string' } },
      required: ['password'],
    })
  })

  it('refuses a run missing a secret before any step, naming it; fills values into steps and checks', () => {
    expect(resolvePlan(workflow, {})).toEqual({
      ok: false,
      message: 'the workflow search needs a value for password; nothing ran',
    })
    const plan = resolvePlan(workflow, { password: 'pw-1', query: 'boots' })
    expect(plan.ok && plan.value.steps[2]).toMatchObject({
      text: 'boots',
      post: { appeared: ['Results for boots'] },
      index: 3,
    })
    expect(plan.ok && plan.value.secrets).toEqual(['pw-1'])
  })

  it('shows the whole plan in words with the values, a secret hidden', () => {
    expect(planInWords(workflow, { password: 'pw-1', query: 'boots' })).toEqual([
      'Origins: http://127.0.0.1:9',
      '1. Go to http://127.0.0.1:9/',
      '2. Type {{password}} into textbox "Password"',
      '3. Type {{query}} into searchbox "Search", then Enter',
      'Values:',
      'query = "boots"',
      'password = (secret, not shown)',
    ])
  })
})

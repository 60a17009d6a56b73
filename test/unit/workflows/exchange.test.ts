import { describe, expect, it } from 'vitest'
import { fromRecorder, toPlaywright, toRecorder } from '../../../src/workflows/exchange'
import { parseWorkflow, WORKFLOW_FORMAT_VERSION, type Workflow } from '../../../src/workflows/format'

const workflow: Workflow = {
  version: WORKFLOW_FORMAT_VERSION,
  name: 'sign_in',
  description: 'Sign in and search',
  permission: 'auto',
  recordedBy: 'agent',
  createdAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T10:00:00.000Z',
  variables: [
    { name: 'search', secret: false, default: 'lamp' },
    { name: 'password', secret: true },
  ],
  steps: [
    { action: 'navigate', url: 'http://127.0.0.1:9/login' },
    {
      action: 'type',
      target: { role: 'textbox', name: 'Password', css: '#pw', secret: true },
      text: '{{password}}',
    },
    {
      action: 'click',
      target: { role: 'button', name: 'Sign in', css: 'form > button', xpath: '/html/body/form/button' },
      post: { url: 'http://127.0.0.1:9/search', title: 'Search' },
    },
    {
      action: 'type',
      target: { label: 'Search', css: '#q' },
      text: '{{search}}',
      submit: true,
      post: { appeared: ['Results for {{search}}'] },
    },
    {
      action: 'click',
      target: { role: 'button', name: 'Place order', css: '#place' },
      post: { dialog: { type: 'confirm' } },
    },
    { action: 'dialog', accept: true },
  ],
  history: [],
}

describe('export and import', () => {
  it('exports a Recorder user flow with values, a secret given or exported empty with a warning', () => {
    const empty = toRecorder(workflow)
    expect(empty.warnings).toEqual([
      'the secret password is exported empty: give it with --var password=...',
      'step 6 (dialog) has no Recorder step and is left out',
    ])
    const flow = JSON.parse(toRecorder(workflow, { password: 'pw', search: 'desk' }).text) as {
      title: string
      steps: Record<string, unknown>[]
    }
    expect(flow.title).toBe('Sign in and search')
    expect(flow.steps.map((s) => s.type)).toEqual([
      'setViewport',
      'navigate',
      'change',
      'click',
      'change',
      'keyDown',
      'keyUp',
      'click',
    ])
    expect(flow.steps[2]).toMatchObject({
      value: 'pw',
      selectors: [['aria/Password[role="textbox"]'], ['#pw']],
    })
    expect(flow.steps[3]).toMatchObject({
      assertedEvents: [{ type: 'navigation', url: 'http://127.0.0.1:9/search', title: 'Search' }],
    })
    expect(flow.steps[4]).toMatchObject({ value: 'desk' })
  })

  it('exports a Playwright test that reads secrets from the environment and checks post-conditions', () => {
    const { text } = toPlaywright(workflow)
    expect(text).toContain("const password = process.env.BRIDGE_PASSWORD ?? ''")
    expect(text).toContain('const search = process.env.BRIDGE_SEARCH ?? "lamp"')
    expect(text).toContain(
      'await page.getByRole("textbox", { name: "Password", exact: true }).fill(`${password}`)',
    )
    expect(text).toContain("page.once('dialog', (dialog) => dialog.accept())")
    expect(text).toContain('await expect(page.getByText(`Results for ${search}`).first()).toBeVisible()')
  })

  it('imports a Recorder flow as a valid workflow, off, typed values as variables', () => {
    const flow = JSON.parse(toRecorder(workflow, { password: 'pw' }).text) as unknown
    const imported = fromRecorder(flow, 'sign_in_again', '2026-11-27T11:00:00.000Z')
    expect(parseWorkflow(imported).ok).toBe(true)
    expect(imported).toMatchObject({
      permission: 'off',
      recordedBy: 'import',
      variables: [
        { name: 'value1', default: 'pw' },
        { name: 'value2', default: 'lamp' },
      ],
    })
    expect(imported.steps.map((s) => s.action)).toEqual([
      'navigate',
      'type',
      'click',
      'type',
      'press',
      'click',
    ])
    expect(imported.steps[2]!.target).toEqual({
      name: 'Sign in',
      role: 'button',
      css: 'form > button',
      xpath: '/html/body/form/button',
    })
  })

  it('puts a navigation on the key that causes it, and a wait as an expression that reads back', () => {
    const waits: Workflow = {
      ...workflow,
      variables: [{ name: 'search', secret: false, default: 'lamp' }],
      steps: [
        {
          action: 'type',
          target: { css: '#q' },
          text: '{{search}}',
          submit: true,
          post: { url: 'http://127.0.0.1:9/search' },
        },
        { action: 'wait', text: 'Said "done" \\ {{search}}' },
      ],
    }
    const flow = JSON.parse(toRecorder(waits).text) as { steps: Record<string, unknown>[] }
    expect(flow.steps.slice(2)).toEqual([
      {
        type: 'keyDown',
        target: 'main',
        key: 'Enter',
        assertedEvents: [{ type: 'navigation', url: 'http://127.0.0.1:9/search', title: '' }],
      },
      { type: 'keyUp', target: 'main', key: 'Enter' },
      {
        type: 'waitForExpression',
        target: 'main',
        expression: 'document.body?.innerText.includes("Said \\"done\\" \\\\ lamp")',
      },
    ])
    const back = fromRecorder(flow, 'waits')
    expect(back.steps.at(-1)).toEqual({ action: 'wait', text: 'Said "done" \\ lamp' })
  })
})

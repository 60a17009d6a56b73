import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  assertUnchanged,
  personWorkflow,
  withoutStep,
  withVariableRenamed,
} from '../../../src/workflows/edits'
import { parseWorkflow, WORKFLOW_FORMAT_VERSION, type Workflow } from '../../../src/workflows/format'
import { createWorkflowStore } from '../../../src/workflows/store'
import { createWorkflowMethods } from '../../../src/ws/workflowMethods'

const AT = '2026-11-28T10:00:00.000Z'
const sample = (): Workflow => ({
  version: WORKFLOW_FORMAT_VERSION,
  name: 'sign_in',
  description: 'Signs in',
  permission: 'off',
  recordedBy: 'person',
  createdAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T10:00:00.000Z',
  variables: [
    { name: 'email', secret: false, default: 'ada@example.com' },
    { name: 'password', secret: true },
  ],
  steps: [
    { action: 'navigate', url: 'http://127.0.0.1:1/login' },
    { action: 'type', target: { label: 'Email', css: '#email', text: '{{email}}' }, text: '{{email}}' },
    { action: 'type', target: { label: 'Password', css: '#pw', secret: true }, text: '{{password}}' },
    {
      action: 'click',
      target: { role: 'button', name: 'Sign in', css: 'form > button' },
      post: { appeared: ['Welcome {{email}}'] },
    },
  ],
  history: [],
})

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('workflow edits', () => {
  it('removes a step into the history with its target and post-condition, and drops a variable no step uses', () => {
    const next = withoutStep(sample(), 2, AT)
    expect(next.steps.map((s) => s.action)).toEqual(['navigate', 'type', 'click'])
    // {{email}} is still in the click's post-condition: it stays.
    expect(next.variables.map((v) => v.name)).toEqual(['email', 'password'])
    const again = withoutStep(next, 2, AT)
    expect(again.variables.map((v) => v.name)).toEqual(['email'])
    expect(again.history).toEqual([
      {
        at: AT,
        step: 2,
        change: 'removed',
        note: 'removed: Type {{email}} into the field "Email"',
        old: { label: 'Email', css: '#email', text: '{{email}}' },
      },
      {
        at: AT,
        step: 2,
        change: 'removed',
        note: 'removed: Type {{password}} into the field "Password"',
        old: { label: 'Password', css: '#pw', secret: true },
      },
    ])
    expect(parseWorkflow(again).ok).toBe(true)
    expect(() => withoutStep(sample(), 9)).toThrow('has no step 9')
    expect(() => withoutStep({ ...sample(), steps: sample().steps.slice(0, 1), variables: [] }, 1)).toThrow(
      'delete the workflow instead',
    )
  })

  it('renames a variable in values and post-conditions, never in a target, and checks the new name', () => {
    const next = withVariableRenamed(sample(), 'email', 'login', AT)
    expect(next.variables[0]).toEqual({ name: 'login', secret: false, default: 'ada@example.com' })
    expect(next.steps[1]).toEqual({
      action: 'type',
      target: { label: 'Email', css: '#email', text: '{{email}}' },
      text: '{{login}}',
    })
    expect(next.steps[3]!.post).toEqual({ appeared: ['Welcome {{login}}'] })
    expect(parseWorkflow(next).ok).toBe(true)
    expect(() => withVariableRenamed(sample(), 'email', 'password')).toThrow(
      'has a variable password already',
    )
    expect(() => withVariableRenamed(sample(), 'email', '1 bad')).toThrow('not a variable name')
    expect(() => withVariableRenamed(sample(), 'nope', 'x')).toThrow('has no variable nope')
  })

  it('refuses an edit of a file that changed since the panel showed it', () => {
    expect(() => assertUnchanged(sample(), AT)).toThrow('changed since it was shown')
    expect(() => assertUnchanged(sample(), sample().updatedAt)).not.toThrow()
  })

  it("makes a person's acts a workflow by the agent recording's rules: a password is a secret with no value", () => {
    const { workflow } = personWorkflow(
      'sign_in',
      '',
      [
        { tool: 'browser_navigate', input: { url: 'http://127.0.0.1:1/login' }, report: '' },
        {
          tool: 'browser_type',
          input: { text: 'hunter2 secret', submit: true },
          target: { label: 'Password', css: '#pw', secret: true },
          report:
            'URL: http://127.0.0.1:1/home\nChanged on the page (new and changed lines, under their parents):\n- heading "Hello hunter2 secret" [level=1]\n- heading "Home" [level=1]',
        },
      ],
      AT,
    )
    expect(workflow.recordedBy).toBe('person')
    expect(workflow.permission).toBe('off')
    expect(workflow.variables).toEqual([{ name: 'password', secret: true }])
    expect(workflow.steps[1]).toMatchObject({ action: 'type', text: '{{password}}', submit: true })
    expect(workflow.steps[1]!.post).toEqual({ url: 'http://127.0.0.1:1/home', appeared: ['Home'] })
    expect(JSON.stringify(workflow)).not.toContain('hunter2')
  })
})

describe('the panel methods on the daemon', () => {
  const setUp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-wfm-'))
    dirs.push(dir)
    const store = createWorkflowStore(dir)
    let changes = 0
    const methods = createWorkflowMethods({ store, onChanged: () => changes++ })
    store.write(sample())
    return { store, methods, changes: () => changes, file: join(store.dir, 'sign_in.json') }
  }

  it('edits through the store and announces each change; refusals leave the file as it was', async () => {
    const { methods, changes, file } = setUp()
    const listed = (await methods['workflow.list']({})).workflows[0]!
    expect(listed.steps[1]).toBe('Type {{email}} into the field "Email"')
    expect(listed.variables[1]).toEqual({ name: 'password', secret: true })
    await methods['workflow.setPermission']({ name: 'sign_in', permission: 'ask' })
    expect(changes()).toBe(1)
    const before = readFileSync(file, 'utf8')
    await expect(
      methods['workflow.removeStep']({ name: 'sign_in', step: 2, seen: listed.updatedAt! }),
    ).rejects.toThrow('changed since it was shown')
    await expect(methods['workflow.remove']({ name: 'nothing_here' })).rejects.toThrow('no workflow named')
    expect(readFileSync(file, 'utf8')).toBe(before)
    expect(changes()).toBe(1)
    const now = (await methods['workflow.list']({})).workflows[0]!
    await methods['workflow.removeStep']({ name: 'sign_in', step: 2, seen: now.updatedAt! })
    expect(JSON.parse(readFileSync(file, 'utf8')).steps).toHaveLength(3)
    await expect(
      methods['workflow.saveRecording']({
        name: 'sign_in',
        description: '',
        steps: [{ tool: 'browser_navigate', input: { url: 'http://127.0.0.1:1/' }, report: '' }],
      }),
    ).rejects.toThrow('exists already')
  })
})

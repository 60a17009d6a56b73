import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseWorkflow, WORKFLOW_FORMAT_VERSION, type Workflow } from '../../../src/workflows/format'
import { createWorkflowStore } from '../../../src/workflows/store'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const configDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-wf-'))
  dirs.push(dir)
  return dir
}

const sample = (over: Partial<Workflow> = {}): Workflow => ({
  version: WORKFLOW_FORMAT_VERSION,
  name: 'sign_in',
  description: 'Signs in',
  permission: 'off',
  recordedBy: 'agent',
  createdAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T10:00:00.000Z',
  variables: [
    { name: 'email', secret: false, default: 'ada@example.com' },
    { name: 'password', secret: true },
  ],
  steps: [
    { action: 'navigate', url: 'http://127.0.0.1:1/login' },
    { action: 'type', target: { label: 'Email', css: '#email' }, text: '{{email}}' },
    { action: 'type', target: { label: 'Password', css: '#pw', secret: true }, text: '{{password}}' },
    { action: 'click', target: { role: 'button', name: 'Sign in' }, post: { appeared: ['Welcome'] } },
  ],
  history: [],
  ...over,
})

describe('workflow files', () => {
  it('writes <name>.json with mode 0600 in a 0700 folder and reads it back the same', () => {
    const store = createWorkflowStore(configDir())
    store.write(sample())
    const file = join(store.dir, 'sign_in.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(store.dir).mode & 0o777).toBe(0o700)
    const loaded = store.read('sign_in')
    expect(loaded).toEqual({ ok: true, workflow: sample() })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(sample())
  })

  it('refuses a secret variable with a stored value, and a step using an unknown variable', () => {
    const withSecret = sample({ variables: [{ name: 'password', secret: true, default: 'hunter22' }] })
    expect(parseWorkflow(withSecret)).toMatchObject({
      ok: false,
      message: expect.stringContaining('never stored'),
    })
    const unknown = sample({ variables: [{ name: 'password', secret: true }] })
    expect(parseWorkflow(unknown)).toMatchObject({ ok: false, message: expect.stringContaining('{{email}}') })
    expect(() => createWorkflowStore(configDir()).write(withSecret)).toThrow(/never stored/)
  })

  it('refuses another format version by name, and lists a broken file as broken', () => {
    expect(parseWorkflow({ ...sample(), version: 2 })).toEqual({
      ok: false,
      message: 'this file is workflow format version 2; this bridge reads version 1',
    })
    const store = createWorkflowStore(configDir())
    store.write(sample())
    writeFileSync(join(store.dir, 'broken.json'), '{"version": 1', { mode: 0o600 })
    const listed = store.list()
    expect(listed.map((l) => (l.ok ? l.workflow.name : `!${l.name}`))).toEqual(['!broken', 'sign_in'])
  })

  it('renames the file and the name inside it, and will not overwrite another', () => {
    const store = createWorkflowStore(configDir())
    store.write(sample())
    store.write(sample({ name: 'other' }))
    expect(() => store.rename('sign_in', 'other')).toThrow(/exists already/)
    store.rename('sign_in', 'log_in')
    expect(store.read('sign_in')).toBeUndefined()
    expect(store.read('log_in')).toMatchObject({ ok: true, workflow: { name: 'log_in' } })
    expect(store.remove('log_in')).toBe(true)
    expect(store.remove('log_in')).toBe(false)
  })

  it('refuses names that are not tool names', () => {
    const store = createWorkflowStore(configDir())
    expect(() => store.read('../config')).toThrow(/not a workflow name/)
    expect(() => store.write(sample({ name: 'Sign-In' }))).toThrow()
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createBrowserToolContext } from '../../../src/config/uploadFolders'
import type { WorkflowRunInput } from '../../../src/protocol/workflow'
import { createDaemonWorkflows, type StepCall } from '../../../src/workflows/daemonWorkflows'
import { WORKFLOW_FORMAT_VERSION } from '../../../src/workflows/format'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

describe("a workflow's tool step", () => {
  it('calls only the tool and input its plan holds, as the client that runs it, while the run lasts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-wf-'))
    dirs.push(dir)
    const made: Parameters<StepCall>[0][] = []
    const workflows = createDaemonWorkflows({
      configDir: dir,
      audit: { record: () => undefined },
      onChanged: () => undefined,
      uploads: createBrowserToolContext(() => []),
      callTool: (call) => (made.push(call), Promise.resolve({ ok: true, output: 'noted' })),
    })
    workflows.store.write({
      version: WORKFLOW_FORMAT_VERSION,
      name: 'note',
      description: '',
      permission: 'auto',
      recordedBy: 'agent',
      createdAt: '2026-11-28T10:00:00.000Z',
      updatedAt: '2026-11-28T10:00:00.000Z',
      variables: [{ name: 'text', secret: false, default: 'hello' }],
      steps: [
        { action: 'navigate', url: 'http://127.0.0.1:1/' },
        { action: 'tool', tool: 'site__add_note', input: { text: '{{text}}' } },
      ],
      history: [],
    })
    workflows.reread()
    const tool = workflows.tools().find((t) => t.key === 'note')!
    // No caller, no tool steps: a run that would call a tool must know as whom.
    expect(await tool.prepare({})).toMatchObject({ ok: false })
    const prepared = await tool.prepare({ text: 'bye' }, { client: 'agent-a', session: 's1' })
    const plan = (prepared as { ok: true; value: WorkflowRunInput }).value
    expect(plan.run).toMatch(/^[0-9a-f-]{36}$/)

    expect(await workflows.toolStep({ run: 'guessed', step: 2 })).toMatchObject({ ok: false })
    expect(await workflows.toolStep({ run: plan.run!, step: 1 })).toMatchObject({ ok: false })
    expect(made).toEqual([])
    expect(await workflows.toolStep({ run: plan.run!, step: 2 })).toEqual({ ok: true, output: 'noted' })
    expect(made).toEqual([
      { name: 'site__add_note', input: { text: 'bye' }, client: 'agent-a', session: 's1' },
    ])

    // The run's result comes back: its id is forgotten.
    workflows.afterCall({
      id: 'x',
      name: 'workflow_note',
      plugin: 'browser',
      input: {},
      client: 'agent-a',
      outcome: { ok: true, output: { ok: true, steps: [], run: plan.run } },
    })
    expect(await workflows.toolStep({ run: plan.run!, step: 2 })).toMatchObject({ ok: false })
    expect(made).toHaveLength(1)
  })
})

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createBrowserToolContext } from '../../../src/config/uploadFolders'
import { createDaemonWorkflows } from '../../../src/workflows/daemonWorkflows'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function daemonWorkflows() {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-wf-'))
  dirs.push(dir)
  const workflows = createDaemonWorkflows({
    configDir: dir,
    audit: { record: () => undefined },
    onChanged: () => undefined,
    uploads: createBrowserToolContext(() => []),
    callTool: () => Promise.resolve({ ok: true, output: '' }),
  })
  const folder = join(dir, 'workflows')
  return { workflows, files: () => (existsSync(folder) ? readdirSync(folder) : []) }
}

const call = (
  name: string,
  outcome: Parameters<ReturnType<typeof createDaemonWorkflows>['afterCall']>[0]['outcome'],
) => ({
  id: `c-${name}`,
  name,
  plugin: 'browser',
  input: name === 'browser_recording_start' ? { name: 'pay_rent' } : {},
  client: 'agent-a',
  outcome,
})

describe('a recording one side lost while it ran', () => {
  it('tells the agent the recording was lost when the daemon restarted mid-recording, and saves no file', () => {
    // The daemon that saw browser_recording_start and the first steps is gone: a new one (a fresh
    // createDaemonWorkflows) sees only the stop, which the extension, still recording, answers.
    const { workflows, files } = daemonWorkflows()
    const stopped = workflows.afterCall(
      call('browser_recording_stop', {
        ok: true,
        output: { recording: 'pay_rent', steps: [{ dispatchId: 'd1', tab: { id: 1, url: 'http://x/' } }] },
      }),
    )
    expect(stopped).toMatchObject({ ok: false, error: { code: 'tool_error' } })
    const message = (stopped as { error: { message: string } }).error.message
    expect(message).toContain('the recording pay_rent was lost: the bridge daemon restarted')
    expect(message).toContain('nothing was saved')
    expect(message).toContain('browser_recording_start')
    expect(files()).toEqual([])
  })

  it('tells the agent the recording was lost when the extension no longer has it, and forgets it', () => {
    const { workflows, files } = daemonWorkflows()
    workflows.afterCall(call('browser_recording_start', { ok: true, output: { recording: 'pay_rent' } }))
    workflows.afterCall(call('browser_navigate', { ok: true, output: 'Navigated' }))
    const refused = {
      ok: false as const,
      error: {
        code: 'tool_error' as const,
        category: 'validation',
        message: 'no recording is running: start one with browser_recording_start',
      },
    }
    const stopped = workflows.afterCall(call('browser_recording_stop', refused))
    expect((stopped as { error: { message: string } }).error.message).toContain(
      'the recording pay_rent was lost: the browser extension restarted',
    )
    // Forgotten: a second stop is the extension's own refusal, and later calls are not recorded.
    expect(workflows.afterCall(call('browser_recording_stop', refused))).toEqual(refused)
    expect(files()).toEqual([])
  })

  it('passes on any other failure of the stop and keeps the recording (the stop may be tried again)', () => {
    const { workflows, files } = daemonWorkflows()
    workflows.afterCall(call('browser_recording_start', { ok: true, output: { recording: 'pay_rent' } }))
    const away = {
      ok: false as const,
      error: { code: 'extension_not_connected' as const, message: 'not connected' },
    }
    expect(workflows.afterCall(call('browser_recording_stop', away))).toEqual(away)
    const saved = workflows.afterCall(
      call('browser_recording_stop', { ok: true, output: { recording: 'pay_rent', steps: [] } }),
    )
    expect(saved).toMatchObject({ ok: true, output: { saved: 'pay_rent' } })
    expect(files()).toEqual(['pay_rent.json'])
  })
})

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/audit'
import { createDaemonAudit } from '../../../src/audit/daemonAudit'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-daemon-audit-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const entry = (tool: string, success: boolean): AuditEntry => ({
  timestamp: new Date(1_700_000_000_000).toISOString(),
  tool,
  plugin: 'notes',
  success,
  durationMs: 3,
})
const limits = { auditRotateBytes: 10 * 1024 * 1024, auditSyncWindowMs: 5 }

describe('createDaemonAudit', () => {
  it('writes each entry to audit.log in the config directory and tells who listens, failures too', async () => {
    const heard: string[] = []
    const audit = createDaemonAudit({
      dir,
      limits,
      onRecorded: ({ tool, success }) => void heard.push(`${tool} ${success ? 'succeeded' : 'failed'}`),
    })

    audit.record(entry('notes_list_notes', true))
    audit.record(entry('notes_delete_note', false))
    await audit.close()

    expect(heard).toEqual(['notes_list_notes succeeded', 'notes_delete_note failed'])
    const written = readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n')
    expect(written.map((line) => (JSON.parse(line) as AuditEntry).tool)).toEqual([
      'notes_list_notes',
      'notes_delete_note',
    ])
    expect(audit.diskStatus()).toMatchObject({ ok: true, linesWritten: 2 })
  })

  it('counts the entries audit.log already holds from an earlier run', async () => {
    writeFileSync(join(dir, 'audit.log'), `${JSON.stringify(entry('notes_list_notes', true))}\n`, {
      mode: 0o600,
    })
    const audit = createDaemonAudit({ dir, limits, onRecorded: () => undefined })
    expect(audit.summary().totalInvocations).toBe(1)
    expect(audit.query({ limit: 10, earlier: true }).map((e) => e.tool)).toEqual(['notes_list_notes'])
    await audit.close()
  })
})

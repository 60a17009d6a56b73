import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/audit'
import { readAuditTree, readCheckpoints } from '../../../src/audit/auditDisk'
import { createDaemonAudit } from '../../../src/audit/daemonAudit'
import {
  checkWitness,
  verifyCheckpointSignature,
  type AuditCheckpoint,
} from '../../../src/protocol/auditProof'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-audit-tree-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const entry = (n: number): AuditEntry => ({
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
  tool: 'notes_list_notes',
  plugin: 'notes',
  client: 'agent',
  success: true,
  durationMs: n,
})

function open(rotateBytes = 10 * 1024 * 1024) {
  return createDaemonAudit({
    dir,
    limits: { auditRotateBytes: rotateBytes, auditSyncWindowMs: 1 },
    onRecorded: () => undefined,
  })
}

describe('the daemon’s verifiable audit log', () => {
  it('writes each entry as canonical JSON, signs a checkpoint per group commit, and keeps its key private', async () => {
    const audit = open()
    audit.record(entry(1))
    audit.record(entry(2))
    await audit.close()

    const lines = readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n')
    expect(lines[0]).toBe(
      '{"client":"agent","durationMs":1,"plugin":"notes","success":true,"timestamp":"2023-11-14T22:13:20.001Z","tool":"notes_list_notes"}',
    )
    const { checkpoints } = readCheckpoints(dir)
    expect(checkpoints.length).toBeGreaterThan(0)
    const last = checkpoints.at(-1)!
    expect(last.size).toBe(2)
    expect(await verifyCheckpointSignature(last)).toBe(true)
    expect(await verifyCheckpointSignature({ ...last, size: 3 })).toBe(false)
    expect(statSync(join(dir, 'audit.key')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(dir, 'audit.key'), 'utf8')).toContain('PRIVATE KEY')
  })

  it('proves each new checkpoint extends the old one, across two rotations and a restart', async () => {
    let audit = open(600)
    for (let i = 0; i < 3; i++) audit.record(entry(i))
    const first = audit.tree!.checkpoint()
    for (let i = 3; i < 20; i++) audit.record(entry(i))
    await audit.close()
    // Two rotations at least: entries 0-2 are now kept only as hashes.
    expect(readAuditTree(dir).rotatedOut).toBeGreaterThanOrEqual(3)

    audit = open(600)
    audit.record(entry(20))
    const answer = audit.tree!.consistency(first.size)
    expect(answer.checkpoint.size).toBe(21)
    expect(answer.checkpoint.key).toBe(first.key)
    expect(await checkWitness(first, answer)).toEqual({ ok: true })
    await audit.close()
  })

  it('answers with the files as they are: an edited line fails the witness check as rewritten', async () => {
    const audit = open()
    for (let i = 0; i < 5; i++) audit.record(entry(i))
    const seen: AuditCheckpoint = audit.tree!.checkpoint()
    const path = join(dir, 'audit.log')
    writeFileSync(path, readFileSync(path, 'utf8').replace('"durationMs":2', '"durationMs":9'))
    const verdict = await checkWitness(seen, audit.tree!.consistency(seen.size))
    expect(verdict).toMatchObject({ ok: false, problem: 'rewritten' })
    // The daemon goes on from the files: a checkpoint taken now is extended by what follows.
    const now = audit.tree!.checkpoint()
    audit.record(entry(5))
    expect(await checkWitness(now, audit.tree!.consistency(now.size))).toEqual({ ok: true })
    await audit.close()
  })

  it('tells a truncated tail and a new key apart', async () => {
    let audit = open()
    for (let i = 0; i < 5; i++) audit.record(entry(i))
    const seen = audit.tree!.checkpoint()
    const path = join(dir, 'audit.log')
    const kept = readFileSync(path, 'utf8').split('\n').slice(0, 3).join('\n') + '\n'
    writeFileSync(path, kept)
    expect(await checkWitness(seen, audit.tree!.consistency(seen.size))).toMatchObject({
      ok: false,
      problem: 'truncated',
    })
    await audit.close()
    rmSync(join(dir, 'audit.key'))
    audit = open()
    expect(await checkWitness(seen, audit.tree!.consistency(3))).toMatchObject({
      ok: false,
      problem: 'new_key',
    })
    await audit.close()
  })
})

/**
 * A process running as the user edits the audit log while the daemon writes it, aiming at the rules a
 * witness read follows (src/audit/auditTree.ts): a last line without its newline is taken for a write
 * under way and left for the next read, and the daemon holds its own rotation while the files are
 * read. Each edit must still show to the extension's witness check (src/protocol/auditProof.ts
 * checkWitness) and to `bridge audit verify`'s reader (src/audit/verifyLog.ts).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../src/audit'
import { createDaemonAudit } from '../../src/audit/daemonAudit'
import { verifyAuditLog } from '../../src/audit/verifyLog'
import { checkWitness } from '../../src/protocol/auditProof'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-audit-attack-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const entry = (n: number): AuditEntry => ({
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
  tool: 'mail_send',
  plugin: 'mail',
  client: 'agent',
  success: true,
  durationMs: n,
})
const open = (rotateBytes = 10 * 1024 * 1024) =>
  createDaemonAudit({
    dir,
    limits: { auditRotateBytes: rotateBytes, auditSyncWindowMs: 1 },
    onRecorded: () => undefined,
  })

describe('tampering with the audit log while the daemon writes it', () => {
  it('a half line appended (to pass as a write under way) becomes part of the next entry, and verify names it', async () => {
    const audit = open()
    for (let i = 0; i < 3; i++) audit.record(entry(i))
    // The attacker prepends text to the next entry the daemon writes, with no newline of its own.
    appendFileSync(join(dir, 'audit.log'), '{"forged":true,"x":"')
    audit.record(entry(3))
    await audit.flush()
    await audit.close()
    // The checkpoint the daemon signed after that group commit covers the entry it wrote, not the
    // glued line: verify names the very entry.
    const report = await verifyAuditLog(dir)
    expect(report.ok).toBe(false)
    expect(report.firstBadEntry).toMatchObject({ index: 3, where: 'audit.log line 4' })
    expect(report.problems.join('\n')).toMatch(/rewritten: entry #4/)
  })

  it('a half line left at the end is no entry, and the daemon’s next write shows it', async () => {
    const audit = open()
    for (let i = 0; i < 3; i++) audit.record(entry(i))
    const seen = await audit.tree!.checkpoint()
    appendFileSync(join(dir, 'audit.log'), '{"client":"agent","tool":"mail_delete_all"')
    // While it is unfinished, the log holds what the daemon wrote, and no more.
    const now = await audit.tree!.consistency(seen.size)
    expect(now.checkpoint.size).toBe(3)
    expect(await checkWitness(seen, now)).toEqual({ ok: true })
    // The daemon's next entry is glued to it: not the line it wrote, and verify names that entry.
    audit.record(entry(3))
    await audit.close()
    expect((await verifyAuditLog(dir)).firstBadEntry).toMatchObject({ index: 3 })
  })

  it('a whole forged line appended between the daemon’s writes extends the signed tree, and the daemon says the files changed', async () => {
    const audit = open()
    for (let i = 0; i < 3; i++) audit.record(entry(i))
    await audit.flush()
    const seen = await audit.tree!.checkpoint()
    // Well formed, newline and all: to a reader of the files, an entry like any other.
    appendFileSync(
      join(dir, 'audit.log'),
      `${JSON.stringify({ ...entry(9), tool: 'mail_forward_all', success: true })}\n`,
    )
    audit.record(entry(3))
    await audit.flush()
    const answer = await audit.tree!.consistency(seen.size)
    // The proof holds (the first entries are the ones seen), so the proof alone would pass it...
    expect(await checkWitness(seen, answer)).toEqual({ ok: true })
    // ...but the daemon knows it wrote four entries, not five, and says so in this and every later answer.
    expect(answer.changed).toMatchObject({ entriesOnDisk: 5, entriesWritten: 4 })
    audit.record(entry(4))
    await audit.flush()
    expect((await audit.tree!.consistency(answer.checkpoint.size)).changed).toEqual(answer.changed)
    await audit.close()
  })

  it('an edit, a deletion, a cut tail and a replaced file each show, across rotations held for reads', async () => {
    for (const tamper of ['edit', 'delete', 'truncate', 'replace'] as const) {
      rmSync(dir, { recursive: true, force: true })
      dir = mkdtempSync(join(tmpdir(), 'bridge-audit-attack-'))
      const audit = open(700)
      let n = 0
      // Witness reads go on while entries are written and audit.log rotates every few of them.
      let seen = await audit.tree!.checkpoint()
      for (let round = 0; round < 10; round++) {
        const asked = audit.tree!.consistency(seen.size)
        for (let i = 0; i < 4; i++) audit.record(entry(n++))
        const answer = await asked
        expect(await checkWitness(seen, answer)).toEqual({ ok: true })
        seen = answer.checkpoint
      }
      await audit.flush()
      seen = await audit.tree!.checkpoint()
      const path = join(dir, 'audit.log')
      const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean)
      if (tamper === 'edit') lines[0] = lines[0]!.replace('"success":true', '"success":false')
      if (tamper === 'delete') lines.splice(0, 1)
      if (tamper === 'truncate') lines.splice(-1, 1)
      if (tamper === 'replace') lines.splice(0, lines.length, JSON.stringify(entry(999)))
      writeFileSync(path, `${lines.join('\n')}\n`)
      const verdict = await checkWitness(seen, await audit.tree!.consistency(seen.size))
      expect(verdict.ok, tamper).toBe(false)
      await audit.close()
      expect((await verifyAuditLog(dir)).ok, tamper).toBe(false)
    }
  })
})

/**
 * `bridge audit verify`, `checkpoint` and `export` on a real log written by the daemon's own audit
 * code (one group commit per entry, as a daemon called now and then writes it), then tampered with as
 * a process running as the user would: each tampering exits 1 and names the first bad entry.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/audit'
import { createDaemonAudit } from '../../../src/audit/daemonAudit'
import { leafHashOf } from '../../../src/audit/merkleTree'
import {
  fromHex,
  leafHash,
  verifyCheckpointSignature,
  verifyInclusion,
  type AuditCheckpoint,
} from '../../../src/protocol/auditProof'
import { runCli } from './runCli'

let dir: string
let saved: string
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-audit-verify-'))
  saved = mkdtempSync(join(tmpdir(), 'bridge-audit-kept-'))
  await writeLog(dir, 8, { snapshotAt: 5 })
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(saved, { recursive: true, force: true })
})

const entry = (n: number): AuditEntry => ({
  timestamp: new Date(Date.UTC(2026, 10, 27, 10, 0, n)).toISOString(),
  tool: 'notes_list_notes',
  plugin: 'notes',
  client: 'agent',
  success: true,
  durationMs: n,
})

/**
 * `count` entries, each its own group commit (or `perGroup` of them in one); a copy of audit.log
 * after `snapshotAt` of them.
 */
async function writeLog(
  into: string,
  count: number,
  opts: { snapshotAt?: number; first?: number; perGroup?: number } = {},
) {
  const audit = createDaemonAudit({
    dir: into,
    limits: { auditRotateBytes: 10 * 1024 * 1024, auditSyncWindowMs: 1 },
    onRecorded: () => undefined,
  })
  const first = opts.first ?? 1
  for (let i = first; i < first + count; i++) {
    audit.record(entry(i))
    if ((i - first + 1) % (opts.perGroup ?? 1) === 0) await audit.flush()
    if (i - first + 1 === opts.snapshotAt)
      copyFileSync(join(into, 'audit.log'), join(saved, 'audit.log.older'))
  }
  await audit.close()
}

const log = () => join(dir, 'audit.log')
const lines = () => readFileSync(log(), 'utf8').split('\n').filter(Boolean)
const verify = (...args: string[]) => runCli(['audit', 'verify', ...args], dir)
async function keepCheckpoint(): Promise<string> {
  const printed = await runCli(['audit', 'checkpoint'], dir)
  expect(printed.code).toBe(0)
  const file = join(saved, 'checkpoint.json')
  writeFileSync(file, printed.stdout)
  return file
}

describe('bridge audit verify', () => {
  it('passes an untouched log and one that extends a kept checkpoint', async () => {
    const kept = await keepCheckpoint()
    const checkpoint = JSON.parse(readFileSync(kept, 'utf8')) as AuditCheckpoint
    expect(checkpoint.size).toBe(8)
    expect(await verifyCheckpointSignature(checkpoint)).toBe(true)
    await writeLog(dir, 2)
    const result = await verify('--from', kept)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /audit log verified: 10 entries, root [0-9a-f]{64}, \d+ signed checkpoint\(s\) fit, extends/,
    )
  })

  it('names an edited line', async () => {
    const text = lines()
    text[2] = text[2]!.replace('"durationMs":3', '"durationMs":300')
    writeFileSync(log(), `${text.join('\n')}\n`)
    const result = await verify()
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the first entry that does not fit: #3 (audit.log line 3)')
    expect(result.stdout).toContain('rewritten')
  })

  it('names a deleted line', async () => {
    const text = lines()
    text.splice(4, 1)
    writeFileSync(log(), `${text.join('\n')}\n`)
    const result = await verify()
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the first entry that does not fit: #5 (audit.log line 5)')
  })

  it('says a cut tail was truncated and names the first missing entry', async () => {
    writeFileSync(log(), `${lines().slice(0, 6).join('\n')}\n`)
    const result = await verify()
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the first entry that does not fit: #7')
    expect(result.stdout).toContain('truncated: the log has 6 entries but a checkpoint')
  })

  it('says an older copy put back was truncated, even with its checkpoints put back too, given a kept checkpoint', async () => {
    const kept = await keepCheckpoint()
    copyFileSync(join(saved, 'audit.log.older'), log())
    // The checkpoints of the older time put back as well: only the kept checkpoint tells.
    const checkpoints = join(dir, 'audit.checkpoints')
    const older = readFileSync(checkpoints, 'utf8')
      .split('\n')
      .filter((line) => line && (JSON.parse(line) as AuditCheckpoint).size <= 5)
    writeFileSync(checkpoints, `${older.join('\n')}\n`)
    expect((await verify()).code).toBe(0)
    const result = await verify('--from', kept)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the first entry that does not fit: #6')
    expect(result.stdout).toContain('truncated: the log has 5 entries')
  })

  it('says the whole log was replaced under a new key, given a kept checkpoint', async () => {
    const kept = await keepCheckpoint()
    for (const name of ['audit.log', 'audit.key', 'audit.checkpoints']) rmSync(join(dir, name))
    await writeLog(dir, 9, { first: 30 })
    // A consistent rewrite under its own key passes on its own: that is what a kept checkpoint is for.
    expect((await verify()).code).toBe(0)
    const result = await verify('--from', kept)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('new key')
    expect(result.stdout).toContain('rewritten')
    expect(result.stderr).toContain('the first entry that does not fit: #1')
  })
})

describe('bridge audit verify on a busy log (several entries per group commit)', () => {
  beforeEach(async () => {
    for (const name of ['audit.log', 'audit.key', 'audit.checkpoints']) rmSync(join(dir, name))
    await writeLog(dir, 12, { perGroup: 4 })
    const sizes = readFileSync(join(dir, 'audit.checkpoints'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as AuditCheckpoint).size)
    // One checkpoint per group: a signed root alone would only say "one of entries #5 to #8".
    expect(sizes).toEqual([4, 8, 12])
  })

  it('names the very entry edited inside a group, not the group', async () => {
    const text = lines()
    text[5] = text[5]!.replace('"durationMs":6', '"durationMs":600')
    writeFileSync(log(), `${text.join('\n')}\n`)
    const result = await verify()
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the first entry that does not fit: #6 (audit.log line 6)')
    expect(result.stdout).toContain('rewritten: entry #6 is not the one the checkpoint signed')
  })

  it('names the very entry deleted inside a group', async () => {
    const text = lines()
    text.splice(9, 1)
    writeFileSync(log(), `${text.join('\n')}\n`)
    const result = await verify()
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the first entry that does not fit: #10 (audit.log line 10)')
  })

  it('falls back to the group when the listed hashes were tampered with too', async () => {
    const text = lines()
    text[5] = text[5]!.replace('"durationMs":6', '"durationMs":600')
    writeFileSync(log(), `${text.join('\n')}\n`)
    // The attacker lists the edited entry's hash: the signed root no longer vouches for the list.
    const path = join(dir, 'audit.checkpoints')
    const forged = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const c = JSON.parse(line) as AuditCheckpoint & { leaves?: string[] }
        if (c.size === 8) c.leaves![1] = leafHashOf(Buffer.from(text[5]!)).toString('hex')
        return JSON.stringify(c)
      })
    writeFileSync(path, `${forged.join('\n')}\n`)
    const result = await verify()
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the first entry that does not fit: #5 (audit.log line 5)')
    expect(result.stdout).toContain('one of entries #5 to #8 was changed')
  })
})

describe('bridge audit export', () => {
  it('writes the entries since a time, each with an inclusion proof that verifies against the signed checkpoint', async () => {
    const out = join(saved, 'export.json')
    const result = await runCli(['audit', 'export', '--since', '2026-11-27T10:00:06Z', out], dir)
    expect(result.code).toBe(0)
    const exported = JSON.parse(readFileSync(out, 'utf8')) as {
      format: string
      checkpoint: AuditCheckpoint
      entries: { index: number; line: string; proof: string[] }[]
    }
    expect(exported.format).toBe('bridge-audit-export/1')
    expect(exported.entries.map((e) => e.index)).toEqual([5, 6, 7])
    expect(await verifyCheckpointSignature(exported.checkpoint)).toBe(true)
    for (const e of exported.entries) {
      const leaf = await leafHash(new TextEncoder().encode(e.line))
      const ok = await verifyInclusion(
        e.index,
        exported.checkpoint.size,
        leaf,
        e.proof.map(fromHex),
        fromHex(exported.checkpoint.root),
      )
      expect(ok).toBe(true)
      const forged = await leafHash(
        new TextEncoder().encode(e.line.replace('"success":true', '"success":false')),
      )
      expect(
        await verifyInclusion(
          e.index,
          exported.checkpoint.size,
          forged,
          e.proof.map(fromHex),
          fromHex(exported.checkpoint.root),
        ),
      ).toBe(false)
    }
  })
})

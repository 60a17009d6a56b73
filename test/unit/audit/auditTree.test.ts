import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEntry } from '../../../src/audit'
import { readAuditTree, readCheckpoints } from '../../../src/audit/auditDisk'
import { LeafHashes, leafHashOf } from '../../../src/audit/merkleTree'
import { createDaemonAudit } from '../../../src/audit/daemonAudit'
import { verifyAuditLog } from '../../../src/audit/verifyLog'
import {
  checkWitness,
  toHex,
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

function open(rotateBytes = 10 * 1024 * 1024, auditSignWindowMs?: number) {
  return createDaemonAudit({
    dir,
    limits: { auditRotateBytes: rotateBytes, auditSyncWindowMs: 1, auditSignWindowMs },
    onRecorded: () => undefined,
  })
}

/** Records `entry(n)` and waits for the group commit that puts it on disk (no flush: a flush signs). */
async function recordCommitted(audit: ReturnType<typeof open>, n: number): Promise<void> {
  const syncs = audit.diskStatus().syncs
  audit.record(entry(n))
  await expect.poll(() => audit.diskStatus().syncs, { timeout: 30_000, interval: 5 }).toBeGreaterThan(syncs)
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

  it('signs the first group commit at once and the ones within the sign window together, naming each entry', async () => {
    // A window no test outlasts: what is signed before the flush is the first group commit alone.
    const audit = open(undefined, 10 * 60_000)
    await recordCommitted(audit, 1)
    expect(readCheckpoints(dir).checkpoints.map((c) => c.size)).toEqual([1])
    await recordCommitted(audit, 2)
    await recordCommitted(audit, 3)
    await recordCommitted(audit, 4)
    expect(audit.diskStatus().syncs).toBeGreaterThanOrEqual(4)
    expect(readCheckpoints(dir).checkpoints.map((c) => c.size)).toEqual([1])
    await audit.flush()
    const { checkpoints } = readCheckpoints(dir)
    expect(checkpoints.map((c) => c.size)).toEqual([1, 4])
    expect(await verifyCheckpointSignature(checkpoints[1]!)).toBe(true)
    expect((checkpoints[1] as { leaves?: string[] }).leaves).toHaveLength(3)
    await audit.close()

    // The entries one coalesced checkpoint covers are still named one by one.
    const path = join(dir, 'audit.log')
    const lines = readFileSync(path, 'utf8').split('\n')
    lines[2] = lines[2]!.replace('"durationMs":3', '"durationMs":30')
    writeFileSync(path, lines.join('\n'))
    const report = await verifyAuditLog(dir)
    expect(report.ok).toBe(false)
    expect(report.firstBadEntry?.index).toBe(2)
  })

  // An attacker with the user's file access edits, deletes or cuts entries that are on disk but not
  // signed yet (inside the sign window): the checkpoint signed afterwards is the tree the daemon wrote,
  // so `bridge audit verify` names the tampering, never vouches for it.
  it.each([
    {
      how: 'an edited entry',
      tamper: (lines: string[]) => {
        lines[2] = lines[2]!.replace('"durationMs":3', '"durationMs":0')
      },
      bad: 2,
    },
    { how: 'a deleted entry', tamper: (lines: string[]) => void lines.splice(1, 1), bad: 1 },
    { how: 'a cut tail', tamper: (lines: string[]) => void lines.splice(2), bad: undefined },
  ])('signs the tree it wrote, not the files, after $how inside the sign window', async ({ tamper, bad }) => {
    const audit = open(undefined, 10 * 60_000)
    await recordCommitted(audit, 1)
    await recordCommitted(audit, 2)
    await recordCommitted(audit, 3)
    const path = join(dir, 'audit.log')
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean)
    tamper(lines)
    writeFileSync(path, lines.map((l) => `${l}\n`).join(''))
    await audit.flush()
    await audit.close()
    const signed = readCheckpoints(dir).checkpoints.at(-1)!
    expect(signed.size).toBe(3)
    expect(await verifyCheckpointSignature(signed)).toBe(true)
    const report = await verifyAuditLog(dir)
    expect(report.ok).toBe(false)
    if (bad !== undefined) expect(report.firstBadEntry?.index).toBe(bad)
    else
      expect(report.problems.join('\n')).toMatch(
        /^truncated: the log has 2 entries but a checkpoint signed .* covers 3/m,
      )
  })

  it('signs the group commits of a window once the window ends, and what is left at shutdown', async () => {
    const audit = open(undefined, 50)
    await recordCommitted(audit, 1)
    await recordCommitted(audit, 2)
    await expect
      .poll(() => readCheckpoints(dir).checkpoints.at(-1)?.size, { timeout: 30_000, interval: 10 })
      .toBe(2)
    await recordCommitted(audit, 3)
    await audit.close()
    expect(readCheckpoints(dir).checkpoints.at(-1)?.size).toBe(3)
  })

  it('proves each new checkpoint extends the old one, across two rotations and a restart', async () => {
    let audit = open(600)
    for (let i = 0; i < 3; i++) audit.record(entry(i))
    const first = await audit.tree!.checkpoint()
    for (let i = 3; i < 20; i++) audit.record(entry(i))
    await audit.close()
    // Two rotations at least: entries 0-2 are now kept only as hashes.
    expect(readAuditTree(dir).rotatedOut).toBeGreaterThanOrEqual(3)

    audit = open(600)
    audit.record(entry(20))
    const answer = await audit.tree!.consistency(first.size)
    expect(answer.checkpoint.size).toBe(21)
    expect(answer.checkpoint.key).toBe(first.key)
    expect(await checkWitness(first, answer)).toEqual({ ok: true })
    await audit.close()
  })

  it('answers with the files as they are: an edited line fails the witness check as rewritten', async () => {
    const audit = open()
    for (let i = 0; i < 5; i++) audit.record(entry(i))
    const seen: AuditCheckpoint = await audit.tree!.checkpoint()
    const path = join(dir, 'audit.log')
    writeFileSync(path, readFileSync(path, 'utf8').replace('"durationMs":2', '"durationMs":9'))
    const verdict = await checkWitness(seen, await audit.tree!.consistency(seen.size))
    expect(verdict).toMatchObject({ ok: false, problem: 'rewritten' })
    // The daemon goes on from the files: a checkpoint taken now is extended by what follows.
    const now = await audit.tree!.checkpoint()
    audit.record(entry(5))
    expect(await checkWitness(now, await audit.tree!.consistency(now.size))).toEqual({ ok: true })
    await audit.close()
  })

  it('never takes its own rotation during a read of the files for a change by something else', async () => {
    // The witness asks while calls are audited and audit.log rotates: the files are read one after
    // the other, so a rotation between two reads shows a tree that never was. Each answer must still
    // extend the one before, and no read may make the daemon go on from a torn view.
    const audit = open(700)
    audit.record(entry(0))
    let seen = await audit.tree!.checkpoint()
    let n = 1
    const rotations = () => readAuditTree(dir).rotatedOut
    for (let round = 0; round < 150; round++) {
      const asked = audit.tree!.consistency(seen.size)
      let answered = false
      void asked.finally(() => (answered = true))
      // Entries go on being written (and audit.log rotating) on every turn of the loop until it answers.
      while (!answered) {
        audit.record(entry(n++))
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      const answer = await asked
      expect(await checkWitness(seen, answer), `round ${round}`).toEqual({ ok: true })
      seen = answer.checkpoint
    }
    await audit.close()
    expect(rotations()).toBeGreaterThan(100)
    // What the daemon signed last is the tree of every entry it wrote.
    const fresh = readAuditTree(dir).leaves
    expect(fresh.size).toBe(n)
    expect(readCheckpoints(dir).checkpoints.at(-1)).toMatchObject({ size: n, root: toHex(fresh.root()) })
  })

  it('takes a last line still being written for no entry yet', async () => {
    const audit = open()
    for (let i = 0; i < 3; i++) audit.record(entry(i))
    const seen = await audit.tree!.checkpoint()
    // What a read by the thread pool may meet while the daemon's write is under way: half a line.
    writeFileSync(join(dir, 'audit.log'), '{"client":"agent","dur', { flag: 'a' })
    const answer = await audit.tree!.consistency(seen.size)
    expect(answer.checkpoint.size).toBe(3)
    expect(await checkWitness(seen, answer)).toEqual({ ok: true })
    await audit.close()
  })

  it('says in every later answer that the files held a whole line it did not write, though the tree extends the one seen', async () => {
    const audit = open()
    for (let i = 0; i < 3; i++) await recordCommitted(audit, i)
    const seen = await audit.tree!.checkpoint()
    expect((await audit.tree!.consistency(seen.size)).changed).toBeUndefined()
    // Another process appends a well-formed entry of its own after the daemon's last write.
    const path = join(dir, 'audit.log')
    const last = readFileSync(path, 'utf8').trim().split('\n').at(-1)!
    writeFileSync(path, `${last.replace(/"durationMs":\d+/, '"durationMs":4242')}\n`, { flag: 'a' })
    const answer = await audit.tree!.consistency(seen.size)
    // The signed tree extends the one seen: only the daemon's word tells the line was not its own.
    expect(await checkWitness(seen, answer)).toEqual({ ok: true })
    expect(answer.changed).toMatchObject({ entriesOnDisk: 4, entriesWritten: 3 })
    expect(Date.parse(answer.changed!.at)).not.toBeNaN()
    await recordCommitted(audit, 5)
    expect((await audit.tree!.consistency(answer.checkpoint.size)).changed).toEqual(answer.changed)
    await audit.close()
  })

  it('tells a truncated tail and a new key apart', async () => {
    let audit = open()
    for (let i = 0; i < 5; i++) audit.record(entry(i))
    const seen = await audit.tree!.checkpoint()
    const path = join(dir, 'audit.log')
    const kept = readFileSync(path, 'utf8').split('\n').slice(0, 3).join('\n') + '\n'
    writeFileSync(path, kept)
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toMatchObject({
      ok: false,
      problem: 'truncated',
    })
    await audit.close()
    rmSync(join(dir, 'audit.key'))
    audit = open()
    expect(await checkWitness(seen, await audit.tree!.consistency(3))).toMatchObject({
      ok: false,
      problem: 'new_key',
    })
    await audit.close()
  })

  it('reads the files for the witness without holding the event loop, and answers as a fresh read of the files does', async () => {
    const audit = open()
    const count = 24_000
    for (let i = 0; i < count; i++) audit.record(entry(i))
    await audit.flush()
    // Other work (a call) runs while the files are read and hashed: count the turns of the loop
    // that happen before the answer.
    const turnsDuring = async <T>(work: Promise<T>): Promise<{ value: T; turns: number }> => {
      let turns = 0
      let done = false
      const tick = (): void => {
        if (done) return
        turns++
        setImmediate(tick)
      }
      setImmediate(tick)
      const value = await work
      done = true
      return { value, turns }
    }
    const first = await turnsDuring(audit.tree!.checkpoint())
    expect(first.value.size).toBe(count)
    expect(first.turns).toBeGreaterThanOrEqual(10)

    // The answer is the one a fresh read of the files gives.
    audit.record(entry(count))
    await audit.flush()
    const answer = await audit.tree!.consistency(first.value.size)
    const fresh = readAuditTree(dir).leaves
    expect(answer.checkpoint.root).toBe(toHex(fresh.root()))
    expect(answer.proof).toEqual(fresh.consistencyProof(first.value.size, fresh.size).map(toHex))
    expect(await checkWitness(first.value, answer)).toEqual({ ok: true })
    // What the daemon keeps of the files' tree: its levels from 2^8 entries up and one chunk, not
    // the 64 bytes per entry (1.5 MB here) of a whole tree.
    expect(audit.tree!.keptBytes).toBeLessThan(48 * 1024)
    expect(fresh.keptBytes).toBeGreaterThan(64 * count)
    await audit.close()
  })

  it('proves from a checkpoint inside an earlier chunk, and sees an edit or a deletion in a chunk it keeps only the root of', async () => {
    const audit = open()
    for (let i = 0; i < 300; i++) audit.record(entry(i))
    await audit.flush()
    const seen = await audit.tree!.checkpoint()
    for (let i = 300; i < 1_100; i++) audit.record(entry(i))
    await audit.flush()
    const answer = await audit.tree!.consistency(seen.size)
    expect(await checkWitness(seen, answer)).toEqual({ ok: true })
    const fresh = readAuditTree(dir).leaves
    expect(answer.proof).toEqual(fresh.consistencyProof(seen.size, fresh.size).map(toHex))

    const path = join(dir, 'audit.log')
    const original = readFileSync(path, 'utf8')
    const lines = original.split('\n')
    // Entry 600 is in the third chunk (512-767), held by its root only; the same length.
    const edited = lines[600]!.replace('"durationMs":600', '"durationMs":601')
    expect(edited).not.toBe(lines[600])
    writeFileSync(path, [...lines.slice(0, 600), edited, ...lines.slice(601)].join('\n'))
    const after = await audit.tree!.consistency(seen.size)
    expect(after.checkpoint.root).toBe(toHex(readAuditTree(dir).leaves.root()))
    expect(after.checkpoint.root).not.toBe(answer.checkpoint.root)
    // The old checkpoint's part is untouched: the proof still holds, to another root.
    expect(await checkWitness(seen, after)).toEqual({ ok: true })
    writeFileSync(path, original)
    expect((await audit.tree!.consistency(seen.size)).checkpoint.root).toBe(answer.checkpoint.root)

    // An edit inside the old checkpoint's own chunk (256-511), and a deletion in the first chunk.
    const inOld = lines[280]!.replace('"durationMs":280', '"durationMs":281')
    writeFileSync(path, [...lines.slice(0, 280), inOld, ...lines.slice(281)].join('\n'))
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toMatchObject({
      ok: false,
      problem: 'rewritten',
    })
    writeFileSync(path, [...lines.slice(0, 100), ...lines.slice(101)].join('\n'))
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toMatchObject({ ok: false })
    writeFileSync(path, original)
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toEqual({ ok: true })
    await audit.close()
  })

  it('still sees every tampering after reads that kept the tree: an edit far back, a deleted line, a changed rotated-out hash', async () => {
    const audit = open(4000)
    for (let i = 0; i < 120; i++) audit.record(entry(i))
    await audit.flush()
    expect(readAuditTree(dir).rotatedOut).toBeGreaterThan(0)
    let seen = await audit.tree!.checkpoint()
    // Reads again with nothing changed: the kept tree is reused and the witness passes.
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toEqual({ ok: true })

    const path = join(dir, 'audit.log')
    const edit = (from: string, to: string): void =>
      writeFileSync(path, readFileSync(path, 'utf8').replace(from, to))
    const original = readFileSync(path, 'utf8')
    const firstKept = original.split('\n')[0]!
    // The same length, so nothing but the bytes tells.
    edit(firstKept, firstKept.replace('"durationMs":', '"durationMs":9').replace(',"plugin"', '"plugin"'))
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toMatchObject({
      ok: false,
      problem: 'rewritten',
    })
    writeFileSync(path, original)
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toEqual({ ok: true })

    const lines = original.split('\n')
    writeFileSync(path, [...lines.slice(0, 2), ...lines.slice(3)].join('\n'))
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toMatchObject({
      ok: false,
    })
    writeFileSync(path, original)
    seen = await audit.tree!.checkpoint()

    const hashesPath = join(dir, 'audit.hashes')
    const hashes = readFileSync(hashesPath)
    const changed = Buffer.from(hashes)
    changed[5] = changed[5]! ^ 1
    writeFileSync(hashesPath, changed)
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toMatchObject({
      ok: false,
      problem: 'rewritten',
    })
    writeFileSync(hashesPath, hashes)
    expect(await checkWitness(seen, await audit.tree!.consistency(seen.size))).toEqual({ ok: true })
    await audit.close()
  })
})

describe('the kept tree (LeafHashes) cut back and grown again', () => {
  it('gives the roots and proofs of a tree built afresh', () => {
    const leaf = (n: number): Buffer => leafHashOf(Buffer.from(`entry ${n}`))
    for (const [size, cut, other] of [
      [37, 20, 9],
      [64, 33, 40],
      [100, 0, 5],
      [129, 128, 1],
    ] as const) {
      const kept = new LeafHashes()
      for (let i = 0; i < size; i++) kept.push(leaf(i))
      kept.truncate(cut)
      const fresh = new LeafHashes()
      for (let i = 0; i < cut; i++) fresh.push(leaf(i))
      for (let i = 0; i < other; i++) {
        kept.push(leaf(1000 + i))
        fresh.push(leaf(1000 + i))
      }
      expect(kept.size).toBe(fresh.size)
      for (let m = 0; m <= fresh.size; m++) {
        expect(kept.root(m).equals(fresh.root(m))).toBe(true)
        expect(kept.frontier(m).root().equals(fresh.rangeRoot(0, m))).toBe(true)
        expect(kept.consistencyProof(m, fresh.size)).toEqual(fresh.consistencyProof(m, fresh.size))
      }
    }
  })
})

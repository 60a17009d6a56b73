import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AuditFile, AuditLog, parseAuditQuery, type AuditEntry } from '../../../src/audit'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-audit-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const entry = (n: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
  timestamp: new Date(1_700_000_000_000 + n).toISOString(),
  tool: 'notes_list_notes',
  plugin: 'notes',
  success: true,
  durationMs: n,
  ...over,
})
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry)

describe('AuditLog', () => {
  it('writes every entry as one NDJSON line in a 0600 file by the time record returns', async () => {
    const file = new AuditFile({ dir, rotateBytes: 10 * 1024 * 1024 })
    const log = new AuditLog({ file })
    log.record(entry(1))
    expect(lines(join(dir, 'audit.log'))).toEqual([entry(1)])
    const failed = entry(2, {
      success: false,
      error: { code: 'timeout', message: 'no answer in 30 s', category: 'timeout' },
    })
    log.record(failed)
    expect(lines(join(dir, 'audit.log'))).toEqual([entry(1), failed])
    expect(statSync(join(dir, 'audit.log')).mode & 0o777).toBe(0o600)
    await file.close()
  })

  it('tightens the mode of an existing audit.log and appends to it', async () => {
    writeFileSync(join(dir, 'audit.log'), JSON.stringify(entry(0)) + '\n')
    chmodSync(join(dir, 'audit.log'), 0o644)
    const file = new AuditFile({ dir, rotateBytes: 1024 * 1024 })
    new AuditLog({ file }).record(entry(1))
    expect(lines(join(dir, 'audit.log'))).toEqual([entry(0), entry(1)])
    expect(statSync(join(dir, 'audit.log')).mode & 0o777).toBe(0o600)
    await file.close()
  })

  it('rotates to audit.log.1 when the next line would pass the size limit, keeping two files', async () => {
    const lineBytes = JSON.stringify(entry(10)).length + 1
    const file = new AuditFile({ dir, rotateBytes: lineBytes * 3 })
    const log = new AuditLog({ file })
    for (let n = 10; n < 17; n++) log.record(entry(n))
    expect(lines(join(dir, 'audit.log.1'))).toEqual([entry(13), entry(14), entry(15)])
    expect(lines(join(dir, 'audit.log'))).toEqual([entry(16)])
    expect(existsSync(join(dir, 'audit.log.2'))).toBe(false)
    expect(statSync(join(dir, 'audit.log')).mode & 0o777).toBe(0o600)
    await file.close()
  })

  it('keeps the last 500 entries in memory and answers queries newest first', () => {
    const log = new AuditLog()
    for (let n = 0; n < 510; n++) log.record(entry(n, { success: n % 2 === 0 }))
    const all = log.query({ limit: 500 })
    expect(all).toHaveLength(500)
    expect(all[0]?.durationMs).toBe(509)
    expect(all[499]?.durationMs).toBe(10)
    expect(log.query({ limit: 3, success: false }).map((e) => e.durationMs)).toEqual([509, 507, 505])
  })

  it('filters by plugin and tool', () => {
    const log = new AuditLog()
    log.record(entry(1))
    log.record(entry(2, { plugin: 'browser', tool: 'browser_navigate' }))
    log.record(entry(3, { plugin: 'browser', tool: 'browser_screenshot' }))
    expect(log.query({ limit: 50, plugin: 'browser' }).map((e) => e.durationMs)).toEqual([3, 2])
    expect(log.query({ limit: 50, tool: 'browser_navigate' }).map((e) => e.durationMs)).toEqual([2])
  })

  it('filters by client: one MCP client’s calls, or the built-in callers’', () => {
    const log = new AuditLog()
    log.record(entry(1, { client: 'research-agent' }))
    log.record(entry(2, { client: 'cli' }))
    log.record(entry(3, { client: 'research-agent' }))
    log.record(entry(4))
    expect(log.query({ limit: 50, client: 'research-agent' }).map((e) => e.durationMs)).toEqual([3, 1])
    expect(log.query({ limit: 50, client: 'cli' }).map((e) => e.durationMs)).toEqual([2])
    expect(log.query({ limit: 50, client: 'nobody' })).toEqual([])
  })

  it('summarizes counts, the last 24 hours and the mean duration', () => {
    let now = 1_000_000_000
    const log = new AuditLog({ now: () => now })
    log.record(entry(10))
    now += 25 * 60 * 60 * 1000
    log.record(entry(20, { success: false, error: { code: 'timeout', message: 'x' } }))
    log.record(entry(31))
    expect(log.summary()).toEqual({
      totalInvocations: 3,
      successCount: 2,
      failureCount: 1,
      last24h: { total: 2, success: 1, failure: 1 },
      avgDurationMs: 20,
    })
  })

  it('keeps the entry in memory and reports when the disk refuses it', () => {
    const file = new AuditFile({ dir: join(dir, 'missing'), rotateBytes: 1024 })
    const errors: unknown[] = []
    const log = new AuditLog({ file, onWriteError: (e) => errors.push(e) })
    log.record(entry(1))
    expect(errors).toHaveLength(1)
    expect(log.query({ limit: 1 })).toEqual([entry(1)])
  })
})

describe('parseAuditQuery', () => {
  const parse = (q: string) => parseAuditQuery(new URLSearchParams(q))
  it('defaults to 50 and reads the filters', () => {
    expect(parse('')).toEqual({ ok: true, value: { limit: 50 } })
    expect(parse('limit=500&plugin=notes&tool=notes_x&client=research-agent&success=false')).toEqual({
      ok: true,
      value: { limit: 500, plugin: 'notes', tool: 'notes_x', client: 'research-agent', success: false },
    })
  })
  it('rejects a limit outside 1-500 or not an integer, and a bad success value', () => {
    for (const q of ['limit=0', 'limit=501', 'limit=-1', 'limit=2.5', 'limit=abc', 'limit='])
      expect(parse(q)).toEqual({ ok: false, message: 'limit must be an integer from 1 to 500' })
    expect(parse('success=yes')).toEqual({ ok: false, message: 'success must be true or false' })
  })
})

describe('AuditFile under load and faults', () => {
  it('has each line in the file when record returns, and syncs the lines of one window with one fdatasync', async () => {
    const file = new AuditFile({ dir, rotateBytes: 10 * 1024 * 1024, syncWindowMs: 50 })
    const log = new AuditLog({ file })
    for (let n = 0; n < 200; n++) {
      log.record(entry(n))
      // In the file at once (a killed daemon loses nothing), without waiting for the disk.
      if (n % 50 === 0) expect(lines(join(dir, 'audit.log'))).toHaveLength(n + 1)
    }
    expect(file.stats).toMatchObject({ lines: 200, syncs: 0 })
    // The group commit starts within the window and covers every line written before it.
    await new Promise((resolve) => setTimeout(resolve, 50))
    await file.flush()
    expect(file.stats).toMatchObject({ lines: 200, syncs: 1 })
    expect(log.diskStatus()).toEqual({ ok: true, linesWritten: 200, syncs: 1 })
    // A later line gets its own commit; flush() starts it now rather than at the end of the window.
    log.record(entry(200))
    await file.flush()
    expect(file.stats).toMatchObject({ lines: 201, syncs: 2 })
    expect(lines(join(dir, 'audit.log'))).toHaveLength(201)
    await file.close()
  })

  it('cuts a torn last line off audit.log when it opens the file, keeping every whole line', async () => {
    const whole = `${JSON.stringify(entry(1))}\n${JSON.stringify(entry(2))}\n`
    writeFileSync(join(dir, 'audit.log'), `${whole}{"timestamp":"2026-`)
    const file = new AuditFile({ dir, rotateBytes: 1024 * 1024 })
    expect(readFileSync(join(dir, 'audit.log'), 'utf8')).toBe(whole)
    new AuditLog({ file }).record(entry(3))
    expect(lines(join(dir, 'audit.log'))).toEqual([entry(1), entry(2), entry(3)])
    await file.close()
  })

  it('counts the entries of audit.log.1 and audit.log of earlier runs in the summary', async () => {
    writeFileSync(join(dir, 'audit.log.1'), `${JSON.stringify(entry(10))}\n`)
    const failed = entry(20, { success: false, error: { code: 'timeout', message: 'x' } })
    writeFileSync(join(dir, 'audit.log'), `${JSON.stringify(failed)}\nnot json\n`)
    const file = new AuditFile({ dir, rotateBytes: 1024 * 1024 })
    const log = new AuditLog({ file, now: () => 1_700_000_000_000 + 60_000 })
    log.record(entry(30))
    expect(log.summary()).toEqual({
      totalInvocations: 3,
      successCount: 2,
      failureCount: 1,
      last24h: { total: 3, success: 2, failure: 1 },
      avgDurationMs: 20,
    })
    expect(log.query({ limit: 50 })).toEqual([entry(30)])
    await file.close()
  })

  it('reports a refusing disk once, keeps the refused lines and writes them when the disk works again', async () => {
    const missing = join(dir, 'later')
    const file = new AuditFile({ dir: missing, rotateBytes: 1024 * 1024 })
    const errors: unknown[] = []
    const log = new AuditLog({ file, onWriteError: (e) => errors.push(e) })
    for (let n = 1; n <= 3; n++) log.record(entry(n))
    expect(errors).toHaveLength(1)
    expect(log.diskStatus()).toMatchObject({
      ok: false,
      error: expect.stringContaining('ENOENT'),
      failedEntries: 3,
      waitingForRetry: 3,
      dropped: 0,
    })
    mkdirSync(missing)
    log.record(entry(4))
    expect(lines(join(missing, 'audit.log'))).toEqual([entry(1), entry(2), entry(3), entry(4)])
    expect(log.diskStatus()).toMatchObject({ ok: true, linesWritten: 4 })
    await file.close()
  })
})

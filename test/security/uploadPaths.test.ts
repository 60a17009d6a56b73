/**
 * `paths` of browser_upload_file / browser_drop are read by the daemon from the user's `uploadFolders`.
 * Attacks by whoever can put names inside an allowed folder (a local process, a sync client): a hard
 * link to a private file, a FIFO, names leading into /proc, and a rogue process that swaps a folder
 * on the way for a symlink to a private folder, again and again, hoping to land between the check and
 * the open. The daemon's own reader is driven as the daemon drives it; no attempt may return the
 * private bytes.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { linkSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readUploadFile } from '../../src/config/uploadFolders'

const MB5 = 5 * 1024 * 1024
const SECRET = 'PRIVATE-KEY-BYTES'
const textOf = (base64: string) => Buffer.from(base64, 'base64').toString('utf8')

describe('upload paths against a prepared folder', () => {
  let root: string
  let allowed: string
  let privateDir: string
  let flipper: ChildProcess | undefined

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bridge-upload-attack-'))
    allowed = join(root, 'allowed')
    privateDir = join(root, 'private')
    mkdirSync(allowed, { recursive: true })
    mkdirSync(privateDir, { recursive: true })
    writeFileSync(join(privateDir, 'id_key'), SECRET)
  })
  afterEach(() => {
    flipper?.kill('SIGKILL')
    flipper = undefined
    rmSync(root, { recursive: true, force: true })
  })

  it('refuses a hard link to a file outside the folders', async () => {
    linkSync(join(privateDir, 'id_key'), join(allowed, 'innocent.txt'))
    const result = await readUploadFile('innocent.txt', [allowed], MB5)
    expect(result).toEqual({
      ok: false,
      message:
        '"innocent.txt" has other names (hard links), which may lie outside the allowed folders; copy it instead',
    })
  })

  it('refuses a FIFO at once instead of waiting on it', async () => {
    execFileSync('mkfifo', [join(allowed, 'pipe.txt')])
    expect(await readUploadFile('pipe.txt', [allowed], MB5)).toEqual({
      ok: false,
      message: '"pipe.txt" is not a regular file',
    })
  })

  it('refuses names that lead into /proc, directly or by a symlink in the folder', async () => {
    symlinkSync('/proc/self/environ', join(allowed, 'env.txt'))
    symlinkSync('/proc/self/root', join(allowed, 'root'))
    for (const path of [
      'env.txt',
      'root/etc/hostname',
      '/proc/self/environ',
      `/proc/self/root${privateDir}/id_key`,
    ]) {
      const result = await readUploadFile(path, [allowed], MB5)
      expect(result.ok, path).toBe(false)
      expect(result.ok ? '' : result.message, path).toContain('outside the allowed upload folders')
    }
  })

  it('never reads through a folder swapped for a symlink between the check and the open', async () => {
    // The decoy the check sees, and the link the open may meet instead, under one name: allowed/box.
    const box = join(allowed, 'box')
    mkdirSync(`${box}.dir`)
    writeFileSync(join(`${box}.dir`, 'id_key'), 'decoy')
    symlinkSync(privateDir, `${box}.link`)
    const script = `
      const { renameSync } = require('node:fs')
      const box = ${JSON.stringify(box)}
      const swap = (from, to) => { try { renameSync(from, to) } catch {} }
      for (const end = Date.now() + 30000; Date.now() < end; ) {
        swap(box + '.dir', box); swap(box, box + '.dir')
        swap(box + '.link', box); swap(box, box + '.link')
      }`
    flipper = spawn(process.execPath, ['-e', script], { stdio: 'ignore' })
    // Start once the rogue process is swapping (the link is seen in place).
    for (const start = Date.now(); Date.now() - start < 20_000;) {
      if (lstatSync(box, { throwIfNoEntry: false })?.isSymbolicLink()) break
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    let read = 0
    let leaked = 0
    // About 1 in 500 attempts landed in the window before the fix: 20000 attempts, or 15 s.
    const end = Date.now() + 15_000
    for (let attempt = 0; attempt < 20_000 && Date.now() < end; attempt++) {
      const result = await readUploadFile('box/id_key', [allowed], MB5)
      if (!result.ok) continue
      read++
      if (textOf(result.value.base64) === SECRET) leaked++
    }
    expect(leaked).toBe(0)
    // The race was run: some reads of the decoy went through, so the checks were passed many times.
    expect(read).toBeGreaterThan(0)
  })
})

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readUploadFile, resolveUploadFolder } from '../../../src/config/uploadFolders'

const MB5 = 5 * 1024 * 1024
const text = (base64: string) => Buffer.from(base64, 'base64').toString('utf8')

describe('readUploadFile', () => {
  let root: string
  let allowed: string
  let secret: string
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bridge-uploads-'))
    allowed = join(root, 'allowed')
    mkdirSync(join(allowed, 'sub'), { recursive: true })
    writeFileSync(join(allowed, 'report.csv'), 'a,b\n1,2\n')
    writeFileSync(join(allowed, 'sub', 'note.txt'), 'inside')
    secret = join(root, 'secret.txt')
    writeFileSync(secret, 'do not leak')
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  it('reads a file of an allowed folder by absolute path or by a path relative to the folder', async () => {
    const byPath = await readUploadFile(join(allowed, 'report.csv'), [allowed], MB5)
    expect(byPath.ok && { ...byPath.value, base64: text(byPath.value.base64) }).toEqual({
      name: 'report.csv',
      mimeType: 'text/csv',
      base64: 'a,b\n1,2\n',
    })
    const relative = await readUploadFile('sub/note.txt', [join(root, 'elsewhere'), allowed], MB5)
    expect(relative.ok && relative.value).toMatchObject({ name: 'note.txt', mimeType: 'text/plain' })
    expect(relative.ok && text(relative.value.base64)).toBe('inside')
  })

  it('refuses every path when no folder is allowed, naming the setting', async () => {
    expect(await readUploadFile(join(allowed, 'report.csv'), [], MB5)).toEqual({
      ok: false,
      message:
        'no upload folder is allowed; set uploadFolders in config.json (bridge config set uploadFolders.add <folder>)',
    })
  })

  it('refuses paths outside the allowed folders, also by .. and by a symlink that leads out', async () => {
    const outside = `"${secret}" is outside the allowed upload folders (uploadFolders in config.json (bridge config set uploadFolders.add <folder>))`
    expect(await readUploadFile(secret, [allowed], MB5)).toEqual({ ok: false, message: outside })
    const dotdot = await readUploadFile('../secret.txt', [allowed], MB5)
    expect(dotdot).toMatchObject({ ok: false, message: expect.stringContaining('is outside the allowed') })
    symlinkSync(secret, join(allowed, 'link.txt'))
    symlinkSync(root, join(allowed, 'up'))
    for (const path of [join(allowed, 'link.txt'), 'link.txt', 'up/secret.txt']) {
      const read = await readUploadFile(path, [allowed], MB5)
      expect(read, path).toMatchObject({
        ok: false,
        message: expect.stringContaining('is outside the allowed'),
      })
      expect(JSON.stringify(read)).not.toContain('do not leak')
    }
  })

  it('follows a symlink that stays inside, and allows a folder given through a symlink', async () => {
    symlinkSync(join(allowed, 'sub', 'note.txt'), join(allowed, 'alias.txt'))
    const viaLink = await readUploadFile('alias.txt', [allowed], MB5)
    expect(viaLink.ok && viaLink.value.name).toBe('alias.txt')
    expect(viaLink.ok && text(viaLink.value.base64)).toBe('inside')
    const linkedFolder = join(root, 'linked')
    symlinkSync(allowed, linkedFolder)
    const read = await readUploadFile(join(allowed, 'report.csv'), [linkedFolder], MB5)
    expect(read.ok).toBe(true)
  })

  it('refuses a missing file, a folder, a FIFO and a file over the bytes left', async () => {
    expect(await readUploadFile('nope.txt', [allowed], MB5)).toEqual({
      ok: false,
      message: 'no file at "nope.txt" in the allowed upload folders',
    })
    expect(await readUploadFile('sub', [allowed], MB5)).toEqual({
      ok: false,
      message: '"sub" is not a regular file',
    })
    execFileSync('mkfifo', [join(allowed, 'pipe')])
    expect(await readUploadFile('pipe', [allowed], MB5)).toEqual({
      ok: false,
      message: '"pipe" is not a regular file',
    })
    expect(await readUploadFile('report.csv', [allowed], 5)).toEqual({
      ok: false,
      message: '"report.csv" is 8 bytes; only 5 more bytes fit in this call',
    })
  })
})

describe('resolveUploadFolder', () => {
  it('expands ~ to the home folder and keeps absolute paths', () => {
    expect(resolveUploadFolder('~/Uploads', '/home/ada')).toBe('/home/ada/Uploads')
    expect(resolveUploadFolder('~', '/home/ada')).toBe('/home/ada')
    expect(resolveUploadFolder('/srv/files/', '/home/ada')).toBe('/srv/files')
  })
})

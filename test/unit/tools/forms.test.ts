import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createBrowserToolContext } from '../../../src/config/uploadFolders'
import { forms } from '../../../src/tools'

const b64 = (text: string) => Buffer.from(text).toString('base64')

// The daemon-side step of upload and drop, with files on a real disk: what the extension gets.
describe('browser_upload_file and browser_drop in the daemon', () => {
  let folder: string
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'bridge-forms-'))
    writeFileSync(join(folder, 'cv.pdf'), '%PDF-1.4 tiny')
  })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))
  const allowed = () => createBrowserToolContext(() => [folder])

  it('turns paths into files after the bytes sent, and sends no paths on', async () => {
    const prepared = await forms.uploadFile.prepare?.(
      { selector: '#f', files: [{ name: 'a.txt', base64: b64('alpha') }], paths: ['cv.pdf'] },
      allowed(),
    )
    expect(prepared).toEqual({
      ok: true,
      value: {
        selector: '#f',
        files: [
          { name: 'a.txt', base64: b64('alpha') },
          { name: 'cv.pdf', mimeType: 'application/pdf', base64: b64('%PDF-1.4 tiny') },
        ],
      },
    })
    const dropped = await forms.drop.prepare?.(
      { selector: '#zone', paths: [join(folder, 'cv.pdf')] },
      allowed(),
    )
    expect(dropped?.ok && dropped.value.files?.map((f) => f.name)).toEqual(['cv.pdf'])
  })

  it('counts the bytes sent against the 5 MB a call carries before reading a path', async () => {
    const nearlyFull = Buffer.alloc(5 * 1024 * 1024 - 4).toString('base64')
    const prepared = await forms.uploadFile.prepare?.(
      { files: [{ name: 'big', base64: nearlyFull }], paths: ['cv.pdf'] },
      allowed(),
    )
    expect(prepared).toEqual({
      ok: false,
      message: '"cv.pdf" is 13 bytes; only 4 more bytes fit in this call',
    })
  })

  it('refuses an upload with neither files nor paths, and paths when no folder is allowed', async () => {
    expect(await forms.uploadFile.prepare?.({ selector: '#f' }, allowed())).toEqual({
      ok: false,
      message: 'give files, paths or both',
    })
    const none = await forms.uploadFile.prepare?.(
      { paths: ['cv.pdf'] },
      createBrowserToolContext(() => []),
    )
    expect(none).toMatchObject({ ok: false, message: expect.stringMatching(/^no upload folder is allowed/) })
  })
})

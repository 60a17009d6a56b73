import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension } from '../../helpers/fakeExtension'
import { startFixture, type Fixture } from '../toolcall/fixture'

// The daemon runs the desktop's opener (xdg-open on Linux). A stand-in of that program, first on PATH,
// records the folder it was asked to show, so the test sees exactly what the user's desktop would get.
describe('folder.open from the extension', () => {
  let fx: Fixture
  let ext: FakeExtension
  let bin: string
  const record = () => join(bin, 'opened.txt')

  beforeAll(async () => {
    bin = mkdtempSync(join(tmpdir(), 'bridge-opener-'))
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> "${join(bin, 'opened.txt')}"\n`)
    chmodSync(join(bin, 'xdg-open'), 0o755)
    fx = await startFixture(
      'node',
      { plugins: [{ name: 'notes', tools: [{ name: 'list_notes' }] }] },
      {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
      },
    )
    ext = await FakeExtension.connect(fx.daemon)
  })
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
    rmSync(bin, { recursive: true, force: true })
  })

  const opened = (): string[] =>
    existsSync(record()) ? readFileSync(record(), 'utf8').split('\n').filter(Boolean) : []
  // The opener runs detached: the shell may have created the record and not yet written the line.
  const openedWith = async (path: string): Promise<string[]> => {
    for (let i = 0; i < 300 && !opened().includes(path); i++) await new Promise((r) => setTimeout(r, 100))
    return opened()
  }

  it('opens the config directory', async () => {
    const answer = await ext.request('folder.open', { path: fx.configDir })
    expect(answer.result).toEqual({ ok: true })
    expect(await openedWith(fx.configDir)).toContain(fx.configDir)
  })

  it('opens a local plugin folder', async () => {
    const pluginDir = join(fx.configDir, 'plugin-notes')
    const answer = await ext.request('folder.open', { path: pluginDir })
    expect(answer.result).toEqual({ ok: true })
    expect(await openedWith(pluginDir)).toContain(pluginDir)
  })

  it('refuses any other folder, also through a link, and runs nothing', async () => {
    const before = opened()
    const link = join(fx.configDir, 'link-to-etc')
    symlinkSync('/etc', link)
    for (const path of ['/etc', link, join(fx.configDir, '..'), '/no/such/folder']) {
      const answer = await ext.request('folder.open', { path })
      expect(answer.error?.code).toBe(-32602)
      expect(answer.error?.message).toContain(
        'only opens the bridge config directory or a local plugin folder',
      )
    }
    // Give a wrongly started opener time to write before looking.
    await new Promise((r) => setTimeout(r, 500))
    expect(opened()).toEqual(before)
  })

  it('answers a path of the wrong type with invalid params', async () => {
    const answer = await ext.request('folder.open', { path: 42 })
    expect(answer.error?.code).toBe(-32602)
  })
})

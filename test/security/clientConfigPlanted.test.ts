/**
 * `bridge client add --for <client>` writes a file that belongs to another program, at a path anyone
 * with a foothold in the home folder could prepare. Attacks: a symbolic link planted there pointing at
 * bridge's own auth.json (the old code read the secret through it and wrote it, merged, into the
 * file the agent's own client reads), a FIFO (the old code waited on it for ever), a folder that
 * belongs to another user, a file its program is halfway through writing, and a file its program
 * rewrites while bridge merges it (the old code put back the stale bytes over the program's save).
 */
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  watch,
  writeFileSync,
} from 'node:fs'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { runCli } from '../integration/cli/runCli'

describe('bridge client add --for against a prepared path', () => {
  let daemon: RunningDaemon
  const dirs: string[] = []
  let count = 0

  const freshHome = (): { home: string; cursor: string } => {
    const home = tempConfigDir()
    dirs.push(home)
    return { home, cursor: join(home, '.cursor', 'mcp.json') }
  }
  const add = (home: string) =>
    runCli(
      ['client', 'add', `planted-${++count}`, '--for', 'cursor', '--port', String(daemon.port)],
      daemon.configDir,
      {
        HOME: home,
        XDG_CONFIG_HOME: undefined,
      },
    )
  const filesIn = (dir: string) => readdirSync(dir).sort()

  beforeAll(async () => {
    daemon = await startDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('does not read or write through a symbolic link planted at the path: the secret stays where it was', async () => {
    const { home, cursor } = freshHome()
    mkdirSync(dirname(cursor), { recursive: true })
    const authFile = join(daemon.configDir, 'extension', 'auth.json')
    const authBefore = readFileSync(authFile, 'utf8')
    symlinkSync(authFile, cursor)
    const result = await add(home)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${cursor} is a symbolic link`)
    // The link is still a link to the same file, which is untouched; nothing else was written.
    expect(lstatSync(cursor).isSymbolicLink()).toBe(true)
    expect(readlinkSync(cursor)).toBe(authFile)
    expect(readFileSync(authFile, 'utf8')).toBe(authBefore)
    expect(filesIn(dirname(cursor))).toEqual(['mcp.json'])
    // What to add by hand holds the client's token, never the secret.
    expect(result.stdout + result.stderr).not.toContain(daemon.secret)
  })

  it('does not wait on a FIFO planted at the path', async () => {
    const { home, cursor } = freshHome()
    mkdirSync(dirname(cursor), { recursive: true })
    execFileSync('mkfifo', [cursor])
    const result = await add(home)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${cursor} is not a regular file`)
    expect(lstatSync(cursor).isFIFO()).toBe(true)
  })

  it('writes nothing into a folder of another user linked in its place', async () => {
    const { home, cursor } = freshHome()
    const theirs = tempConfigDir()
    dirs.push(theirs)
    chownSync(theirs, 4321, 4321)
    symlinkSync(theirs, dirname(cursor))
    const result = await add(home)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('belongs to another user')
    expect(filesIn(theirs)).toEqual([])
  })

  it('leaves a file its program is halfway through writing exactly as it is', async () => {
    const { home, cursor } = freshHome()
    mkdirSync(dirname(cursor), { recursive: true })
    const half = '{\n  "mcpServers": {\n    "other": { "command": "other-ser'
    writeFileSync(cursor, half)
    const result = await add(home)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('left as it is')
    expect(readFileSync(cursor, 'utf8')).toBe(half)
    expect(filesIn(dirname(cursor))).toEqual(['mcp.json'])
  })

  it('keeps what its program saved while bridge was merging the file, rather than the stale copy', async () => {
    // The program saves the moment bridge starts writing its backup: between bridge's read and its rename.
    // The save runs in this process, so on a busy machine it can land after bridge is done; such a try
    // proves nothing and is repeated. No try may lose the program's save, and one must land in the window.
    let caught = 0
    for (let attempt = 0; attempt < 10 && caught === 0; attempt++) {
      const { home, cursor } = freshHome()
      const folder = dirname(cursor)
      mkdirSync(folder, { recursive: true })
      writeFileSync(cursor, `${JSON.stringify({ mcpServers: {}, version: 1 })}\n`)
      const saved = `${JSON.stringify({ mcpServers: { mine: { command: 'x' } }, version: 2 })}\n`
      let programSaved = false
      const watcher = watch(folder, (_event, name) => {
        if (programSaved || !name?.includes('bridge-backup')) return
        programSaved = true
        writeFileSync(cursor, saved)
      })
      const result = await add(home).finally(() => watcher.close())
      expect(programSaved).toBe(true)
      expect(readFileSync(cursor, 'utf8')).toBe(saved)
      if (result.code === 0) continue // the save came after bridge's rename: bridge's merge was already done
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('changed while bridge was merging it')
      caught++
    }
    expect(caught).toBe(1)
  })

  it('still writes a plain file of the user’s own (the attacks above change nothing for it)', async () => {
    const { home, cursor } = freshHome()
    const result = await add(home)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(existsSync(cursor)).toBe(true)
    expect(readFileSync(cursor, 'utf8')).toContain('"bridge"')
  })
})

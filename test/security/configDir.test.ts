// The config directory holds the secret and the permissions: another local user who can write it, or
// plant a symbolic link in it, must not be able to change what the daemon trusts or make it write into
// another file. Attacks against the real daemon process, the real CLI and the real log and audit
// writers, on real files.
import {
  chmodSync,
  chownSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AuditFile } from '../../src/audit'
import { attachLogFile, detachLogFile } from '../../src/log'
import { runDaemonToExit, startDaemon, tempConfigDir } from '../helpers/daemon'
import { runCli } from '../integration/cli/runCli'

const dirs: string[] = []
const fresh = () => {
  const dir = tempConfigDir()
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A config directory the daemon has run with once (config.json, auth.json, server.log exist). */
async function usedConfigDir(): Promise<string> {
  const dir = fresh()
  const daemon = await startDaemon({ configDir: dir })
  await daemon.stop()
  return dir
}

/** A file outside the config directory that an attacker wants the daemon to write into. */
function victimFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-victim-'))
  dirs.push(dir)
  const file = join(dir, 'important.txt')
  writeFileSync(file, 'untouched\n')
  return file
}

describe('config directory hardening', () => {
  it('refuses to run when the config directory is writable by other users', async () => {
    const dir = await usedConfigDir()
    chmodSync(dir, 0o777)
    const result = await runDaemonToExit({ configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(`${dir} is writable by other users (mode 0777)`)
    expect(result.output).toContain(`Fix: \`chmod 700 ${dir}\``)
  })

  it('refuses to run when config.json is writable by its group, and leaves it as it is', async () => {
    const dir = await usedConfigDir()
    const file = join(dir, 'config.json')
    chmodSync(file, 0o664)
    const result = await runDaemonToExit({ configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(`${file} is writable by its group (mode 0664)`)
    expect(result.output).toContain(`Fix: \`chmod 600 ${file}\``)
    expect(readFileSync(file, 'utf8')).toContain('"permissions"')
  })

  it('refuses to run with a config directory that belongs to another user', async () => {
    let dir: string
    let owner: number
    if (process.getuid?.() === 0) {
      // As root: hand a used config dir's auth.json to "nobody".
      dir = await usedConfigDir()
      owner = 65534
      chownSync(join(dir, 'extension', 'auth.json'), owner, owner)
    } else {
      // As anyone else: a directory root owns.
      dir = '/usr/share'
      owner = 0
    }
    const result = await runDaemonToExit({ configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toMatch(new RegExp(`belongs to another user \\(uid ${owner}; bridge runs as uid`))
  })

  it('bridge start says the same, naming the path and the fix', async () => {
    const dir = await usedConfigDir()
    chmodSync(join(dir, 'extension'), 0o775)
    const result = await runCli(['start'], dir, {}, 30_000)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${join(dir, 'extension')} is writable by its group (mode 0775)`)
  })

  it('does not follow a symbolic link planted as server.log; its target stays untouched', async () => {
    const dir = await usedConfigDir()
    const target = victimFile()
    unlinkSync(join(dir, 'server.log'))
    symlinkSync(target, join(dir, 'server.log'))
    const result = await runDaemonToExit({ configDir: dir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(`${join(dir, 'server.log')} is a symbolic link`)
    expect(readFileSync(target, 'utf8')).toBe('untouched\n')
  })

  it('opens server.log and audit.log with O_NOFOLLOW, so a link planted after the check is refused too', async () => {
    const dir = fresh()
    const target = victimFile()
    const log = join(dir, 'server.log')
    symlinkSync(target, log)
    expect(() => attachLogFile(log)).toThrow(`${log} is a symbolic link`)
    detachLogFile()
    symlinkSync(target, join(dir, 'audit.log'))
    const audit = new AuditFile({ dir, rotateBytes: 1024 * 1024 })
    expect(() => audit.append('{"forged":true}')).toThrow(expect.objectContaining({ code: 'ELOOP' }))
    await audit.close()
    expect(readFileSync(target, 'utf8')).toBe('untouched\n')
  })

  it('bridge stop does not read a pid file through a symbolic link', async () => {
    const dir = fresh()
    const target = victimFile()
    writeFileSync(target, `${process.pid}\n`)
    symlinkSync(target, join(dir, 'server.pid'))
    const result = await runCli(['stop'], dir)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${join(dir, 'server.pid')} is a symbolic link`)
    expect(readFileSync(target, 'utf8')).toBe(`${process.pid}\n`)
  })
})

/**
 * config.json is changed by several processes (the daemon, `bridge config set`, `bridge-plugin
 * build`); `config.json.lock` makes each read-modify-write whole, so no edit is lost. Real processes
 * race here, with the real updateConfigFile bundled from src/.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PROCESS_SEQUENCE_TIMEOUT_MS } from '../../helpers/timing'
import { readConfigFile, updateConfigFile, updateConfigFileAsync } from '../../../src/config/configFile'
import { isBridgeError } from '../../../src/errors'
import { ROOT } from '../../helpers/daemon'
import { runCli } from '../cli/runCli'

let dir: string
let adder: string
const children: ChildProcess[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-lock-'))
  const entry = join(dir, 'adder.ts')
  writeFileSync(
    entry,
    `import { updateConfigFile } from ${JSON.stringify(join(ROOT, 'src/config/configFile.ts'))}
const [path, name, count] = process.argv.slice(2)
for (let i = 0; i < Number(count); i++) {
  // The lock's wait is long here: this test is about edits lost, not about how long a loaded machine waits.
  updateConfigFile(path, (config) => ({ ...config, localPlugins: [...config.localPlugins, './' + name + '-' + i] }), 120_000)
  await new Promise((resolve) => setImmediate(resolve))
}
`,
  )
  adder = join(dir, 'adder.mjs')
  await build({
    entryPoints: [entry],
    outfile: adder,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
    absWorkingDir: ROOT,
  })
})
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const freshConfig = (name: string) => {
  const sub = mkdtempSync(join(dir, `${name}-`))
  return join(sub, 'config.json')
}
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
/** A live process that is not us: the owner of a lock in these tests. */
const sleeper = (ms: number) => {
  const child = spawn(process.execPath, ['-e', `setTimeout(() => {}, ${ms})`], { stdio: 'ignore' })
  children.push(child)
  return child
}

/**
 * Another process takes `<file>.lock`, and 800 ms later writes `contents` to the file and lets go, as
 * a slow writer would. Resolves once the lock is held.
 */
async function holdLockThenWrite(file: string, contents: object): Promise<void> {
  const lock = `${file}.lock`
  const script = [
    `const fs = require('node:fs')`,
    `fs.writeFileSync(${JSON.stringify(lock)}, process.pid + '\\n')`,
    `process.send('held')`,
    `setTimeout(() => {`,
    `  fs.writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(JSON.stringify(contents))}, { mode: 0o600 })`,
    `  fs.rmSync(${JSON.stringify(lock)})`,
    `  process.disconnect()`,
    `}, 800)`,
  ].join('\n')
  const holder = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  children.push(holder)
  await new Promise((resolve) => holder.once('message', resolve))
}

describe('config.json.lock', () => {
  it(
    'loses no edit when four processes change config.json at the same time',
    { timeout: PROCESS_SEQUENCE_TIMEOUT_MS },
    async () => {
      const path = freshConfig('race')
      const workers = ['a', 'b', 'c', 'd'].map((name) =>
        spawn(process.execPath, [adder, path, name, '40'], { stdio: ['ignore', 'ignore', 'pipe'] }),
      )
      children.push(...workers)
      const stderr: string[] = []
      for (const w of workers) w.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
      expect(await Promise.all(workers.map(exited)), stderr.join('')).toEqual([0, 0, 0, 0])
      const { localPlugins } = readConfigFile(path)
      expect(localPlugins).toHaveLength(160)
      for (const name of ['a', 'b', 'c', 'd'])
        expect(localPlugins.filter((p) => p.startsWith(`./${name}-`))).toEqual(
          Array.from({ length: 40 }, (_, i) => `./${name}-${i}`),
        )
      // No lock or temporary file is left; the backup holds the version before the last change.
      expect(readdirSync(join(path, '..'))).toEqual(['config.json', 'config.json.bak'])
      expect(readConfigFile(`${path}.bak`).localPlugins).toHaveLength(159)
    },
  )

  it('takes over the lock of a process that died holding it', async () => {
    const path = freshConfig('dead')
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await exited(dead)
    writeFileSync(`${path}.lock`, `${dead.pid}\n`)
    expect(updateConfigFile(path, (c) => ({ ...c, port: 9600 })).written).toBe(true)
    expect(readConfigFile(path).port).toBe(9600)
    expect(readdirSync(join(path, '..'))).toEqual(['config.json'])
  })

  it('takes over a lock that names this very process (a dead owner whose pid was reused)', () => {
    const path = freshConfig('self')
    writeFileSync(`${path}.lock`, `${process.pid}\n`)
    updateConfigFile(path, (c) => ({ ...c, port: 9604 }), 200)
    expect(readConfigFile(path).port).toBe(9604)
    expect(existsSync(`${path}.lock`)).toBe(false)
  })

  it('takes over an empty lock after 2 s (its writer died before writing its pid), not before', () => {
    const path = freshConfig('empty')
    writeFileSync(`${path}.lock`, '')
    expect(() => updateConfigFile(path, (c) => c, 200)).toThrow(
      /config\.json\.lock is held by another bridge process;/,
    )
    const old = new Date(Date.now() - 10_000)
    utimesSync(`${path}.lock`, old, old)
    updateConfigFile(path, (c) => ({ ...c, port: 9601 }), 200)
    expect(readConfigFile(path).port).toBe(9601)
    expect(existsSync(`${path}.lock`)).toBe(false)
  })

  it('waits for a live owner, then gives up with a clear error and changes nothing', () => {
    const path = freshConfig('live')
    updateConfigFile(path, (c) => ({ ...c, port: 9602 }))
    const owner = sleeper(20_000)
    writeFileSync(`${path}.lock`, `${owner.pid}\n`)
    let caught: unknown
    const started = Date.now()
    try {
      updateConfigFile(path, (c) => ({ ...c, port: 9603 }), 300)
    } catch (error) {
      caught = error
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
    expect(isBridgeError(caught, 'config_locked')).toBe(true)
    expect((caught as Error).message).toBe(
      `${path}.lock is held by another bridge process (pid ${owner.pid}); try again, or delete that file if no bridge command is running`,
    )
    expect(readConfigFile(path).port).toBe(9602)
    // Not ours: left in place.
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(`${owner.pid}\n`)
  })

  it('lets the daemon go on serving while it waits for a lock, then applies its change', async () => {
    const path = freshConfig('async')
    updateConfigFile(path, (c) => ({ ...c, port: 9604 }))
    const owner = sleeper(20_000)
    writeFileSync(`${path}.lock`, `${owner.pid}\n`)
    let ticks = 0
    const timer = setInterval(() => ticks++, 10)
    try {
      const refused = await updateConfigFileAsync(path, (c) => ({ ...c, port: 9605 }), 300).catch(
        (error: unknown) => error,
      )
      expect(isBridgeError(refused, 'config_locked')).toBe(true)
      // The event loop ran all along: timers fired while the lock was awaited.
      expect(ticks).toBeGreaterThanOrEqual(10)
      expect(readConfigFile(path).port).toBe(9604)

      const waiting = updateConfigFileAsync(path, (c) => ({ ...c, port: 9606 }), 5_000)
      setTimeout(() => rmSync(`${path}.lock`), 200)
      expect((await waiting).next.port).toBe(9606)
      expect(readConfigFile(path).port).toBe(9606)
      expect(existsSync(`${path}.lock`)).toBe(false)
    } finally {
      clearInterval(timer)
    }
  })

  it('releases the lock when the change throws, and writes nothing unchanged', () => {
    const path = freshConfig('throw')
    expect(() =>
      updateConfigFile(path, () => {
        throw new Error('no')
      }),
    ).toThrow('no')
    expect(existsSync(`${path}.lock`)).toBe(false)
    expect(existsSync(path)).toBe(false)
    expect(updateConfigFile(path, (c) => c).written).toBe(true)
    expect(updateConfigFile(path, (c) => c).written).toBe(false)
  })

  it('makes `bridge config set` wait for a lock held by another process, then apply its change on top', async () => {
    const configDir = mkdtempSync(join(dir, 'cli-'))
    const file = join(configDir, 'config.json')
    const lock = `${file}.lock`
    // A CLI that ignored the lock would write first and lose its change to the holder's.
    await holdLockThenWrite(file, { localPlugins: ['./held'], permissions: {}, port: 9515 })
    const result = await runCli(['config', 'set', 'plugin-permission.notes', 'auto', '--force'], configDir, {
      BRIDGE_PORT: '1',
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const config = readConfigFile(file)
    expect(config.localPlugins).toEqual(['./held'])
    expect(config.permissions).toEqual({ notes: { permission: 'auto' } })
    expect(existsSync(lock)).toBe(false)
  })

  it('makes `bridge config reset` wait for a held lock rather than delete the file under a writer', async () => {
    const configDir = mkdtempSync(join(dir, 'reset-'))
    const file = join(configDir, 'config.json')
    updateConfigFile(file, (c) => c)
    const lock = `${file}.lock`
    // A reset that did not wait would delete the file first and leave the holder's copy behind.
    await holdLockThenWrite(file, { localPlugins: [], permissions: {}, port: 9600 })
    const result = await runCli(['config', 'reset', '--confirm'], configDir, { BRIDGE_PORT: '1' })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(existsSync(file)).toBe(false)
    expect(existsSync(lock)).toBe(false)
  })
})

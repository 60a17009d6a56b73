/**
 * config.json survives a writer killed at any moment: a child process rewrites it in a tight loop
 * with the real writeConfigFile (bundled from src/), and is killed with SIGKILL again and again.
 * After every kill the file must parse, match the schema, and hold one of the versions written.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readConfigFile, writeConfigFile } from '../../../src/config/configFile'
import { removeStaleTempFiles } from '../../../src/config/atomicWrite'
import { ROOT } from '../../helpers/daemon'

const KILLS = 40
let dir: string
let writer: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-atomic-'))
  const entry = join(dir, 'writer.ts')
  // Each version has a different size (up to ~800 KB) so a kill often lands in the middle of a write.
  writeFileSync(
    entry,
    `import { writeConfigFile } from ${JSON.stringify(join(ROOT, 'src/config/configFile.ts'))}
const path = process.argv[2]
const versions = Array.from({ length: 16 }, (_, version) => ({
  localPlugins: Array.from({ length: 1 + ((version * 37) % 200) }, (_, i) => './plugin-' + version + '-' + i + '-' + 'x'.repeat(4000)),
  permissions: {},
  port: 1 + version,
}))
// Report each completed write (yielding so the message goes out), so the parent kills mid-loop.
for (let n = 0; ; n++) {
  writeConfigFile(path, versions[n % versions.length])
  process.send?.(n)
  await new Promise((resolve) => setImmediate(resolve))
}
`,
  )
  writer = join(dir, 'writer.mjs')
  await build({
    entryPoints: [entry],
    outfile: writer,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
    absWorkingDir: ROOT,
  })
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Starts the writer, lets it complete `writes` writes, then kills it `delayMs` later (mid-loop). */
function runWriterAndKill(path: string, writes: number, delayMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, path], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    let completed = 0
    child.on('message', () => {
      if (++completed === writes) setTimeout(() => child.kill('SIGKILL'), delayMs)
    })
    child.once('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited on its own: ${stderr}`)),
    )
  })
}

describe('atomic config writes under kill -9', () => {
  it(`leaves a complete, valid config.json after each of ${KILLS} kills of a writer loop`, async () => {
    const path = join(dir, 'config.json')
    writeConfigFile(path, { localPlugins: [], permissions: {}, port: 9515 })
    const seen = new Set<string>()
    let killedMidWrite = 0
    for (let i = 0; i < KILLS; i++) {
      await runWriterAndKill(path, 2 + (i % 7), (i * 7) % 13)
      // A killed writer leaves its temp file behind: proof the kill landed inside a write.
      const temps = readdirSync(dir).filter((name) => name.startsWith('.config.json.'))
      if (temps.length > 0) killedMidWrite++
      removeStaleTempFiles(path)
      removeStaleTempFiles(`${path}.bak`)
      const text = readFileSync(path, 'utf8')
      expect(text.length).toBeGreaterThan(0)
      const config = readConfigFile(path)
      expect(text.endsWith('}\n')).toBe(true)
      // Every entry in a version carries that version's number: a mix would mean a torn write.
      const versions = new Set(config.localPlugins.map((p) => p.split('-')[1]))
      expect(versions.size).toBeLessThanOrEqual(1)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      seen.add(text)
    }
    // The kills really did land inside writes, and writes did complete between kills.
    expect(killedMidWrite, `kills inside a write: ${killedMidWrite} of ${KILLS}`).toBeGreaterThan(0)
    expect(seen.size).toBeGreaterThan(2)
  }, 120_000)

  it('cleans up the temp files a killed writer left behind, and only those', () => {
    const path = join(dir, 'config.json')
    const orphan = join(dir, '.config.json.999999.abcdef.tmp')
    // A temp file of a process that is still running (another writer at work) must stay.
    const live = `.config.json.${process.ppid}.abcdef.tmp`
    // config.json.bak's temp file is not config.json's: sweeping config.json leaves a live writer's backup.
    const liveBackup = `.config.json.bak.${process.ppid}.abcdef.tmp`
    const orphanBackup = join(dir, '.config.json.bak.999999.abcdef.tmp')
    writeFileSync(orphan, '{')
    writeFileSync(join(dir, live), '{')
    writeFileSync(join(dir, liveBackup), '{')
    writeFileSync(orphanBackup, '{')
    removeStaleTempFiles(path)
    expect(
      readdirSync(dir)
        .filter((name) => name.startsWith('.config.json.'))
        .sort(),
    ).toEqual([live, liveBackup, '.config.json.bak.999999.abcdef.tmp'].sort())
    removeStaleTempFiles(`${path}.bak`)
    expect(
      readdirSync(dir)
        .filter((name) => name.startsWith('.config.json.'))
        .sort(),
    ).toEqual([live, liveBackup].sort())
    rmSync(join(dir, live))
    rmSync(join(dir, liveBackup))
    expect(readFileSync(path, 'utf8').length).toBeGreaterThan(0)
  })
})

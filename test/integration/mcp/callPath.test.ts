import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { connectMcp } from '../../helpers/mcpClient'
import { connectMcpV2 } from '../../helpers/mcpClientV2'
import { startFixture, type Fixture } from '../toolcall/fixture'

// docs/protocol.md, "The files one call executes": which files of the daemon a call runs code of, from
// the POST on /mcp to the tool.dispatch frame, measured with V8's precise coverage in the built daemon
// (test/helpers/callCoverage.mjs) for an `auto` plugin tool, on both revisions.
const PRELOAD = fileURLToPath(new URL('../../helpers/callCoverage.mjs', import.meta.url))

interface CalledScript {
  url: string
  offsets: number[]
}

/** The module a bundle offset belongs to: esbuild writes `// <path>` before each module's code. */
function modulesOf(scripts: CalledScript[]): Set<string> {
  const found = new Set<string>()
  for (const script of scripts) {
    const text = readFileSync(fileURLToPath(script.url), 'utf8')
    const starts = [...text.matchAll(/^\/\/ (\S+\.(?:ts|js|mjs|cjs|json))$/gm)].map((m) => ({
      at: m.index,
      path: m[1]!,
    }))
    for (const offset of script.offsets) {
      const module = starts.findLast((start) => start.at <= offset)
      if (module) found.add(module.path)
    }
  }
  return found
}

const DOC = fileURLToPath(new URL('../../../docs/protocol.md', import.meta.url))

/** The files docs/protocol.md lists in its bullet that starts with `- **<label>**` (with its wrapped lines). */
function listed(label: string): string[] {
  const lines = readFileSync(DOC, 'utf8').split('\n')
  const first = lines.findIndex((l) => l.startsWith(`- **${label}**`))
  if (first === -1) throw new Error(`docs/protocol.md has no "- **${label}**" bullet`)
  let last = first + 1
  while (last < lines.length && lines[last]!.startsWith('  ')) last++
  const bullet = lines.slice(first, last).join(' ')
  return [...bullet.matchAll(/`((?:src|machines)\/[^`]+\.ts)`/g)].map((m) => m[1]!)
}

const own = (path: string) => /^(src|machines)\//.test(path)

describe('the files one call executes from /mcp to the tool.dispatch frame', () => {
  let fx: Fixture
  let ext: FakeExtension
  let dir: string
  let taken = 0

  /** The modules whose functions ran since the previous snapshot. */
  async function snapshot(): Promise<Set<string>> {
    const file = join(dir, `${taken++}.json`)
    fx.daemon.proc.kill('SIGUSR2')
    for (;;) {
      try {
        return modulesOf(JSON.parse(readFileSync(file, 'utf8')) as CalledScript[])
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  }

  /** The daemon's own files (src/, machines/) one call ran, after a first call of the same tool. */
  async function traced(call: () => Promise<unknown>): Promise<string[]> {
    const answer = async (result: Promise<unknown>) => {
      ;(await ext.nextDispatch()).succeed({ notes: [] })
      await result
    }
    await answer(call())
    // The first call's tail (its audit entry's group commit) ends before counting starts.
    while ([...(await snapshot())].some(own)) await new Promise((resolve) => setTimeout(resolve, 50))
    const result = call()
    const dispatch = await ext.nextDispatch()
    const files = await snapshot()
    dispatch.succeed({ notes: [] })
    await result
    return [...files].filter(own).sort()
  }

  /**
   * The files three traced calls all ran: a daemon timer that fires inside one call's window (a
   * keepalive, a group commit) adds its files to that window only, never to all three.
   */
  async function tracedThrice(call: () => Promise<unknown>): Promise<string[]> {
    const runs: string[][] = []
    for (let i = 0; i < 3; i++) runs.push(await traced(call))
    return runs[0]!.filter((file) => runs.every((run) => run.includes(file)))
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bridge-coverage-'))
    fx = await startFixture(
      'node',
      {
        plugins: [{ name: 'notes', tools: [{ name: 'list_notes' }] }],
        permissions: { notes: { permission: 'auto' } },
      },
      { NODE_OPTIONS: `--import ${pathToFileURL(PRELOAD).href}`, BRIDGE_TEST_COVERAGE_DIR: dir },
    )
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
  })
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('in a session (2025-11-25): the files docs/protocol.md lists', async () => {
    const mcp = await connectMcp(fx.daemon)
    const files = await tracedThrice(() => mcp.client.callTool({ name: 'notes_list_notes', arguments: {} }))
    await mcp.close()
    expect(files).toEqual(
      [...listed('Both revisions'), ...listed('Session'), ...listed('Read through')].sort(),
    )
  })

  it('without a session (2026-07-28): the files docs/protocol.md lists', async () => {
    const mcp = await connectMcpV2(fx.daemon, fx.daemon.secret)
    const files = await tracedThrice(() => mcp.client.callTool({ name: 'notes_list_notes', arguments: {} }))
    await mcp.close()
    expect(files).toEqual(
      [...listed('Both revisions'), ...listed('Stateless'), ...listed('Read through')].sort(),
    )
  })
})

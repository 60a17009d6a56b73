/**
 * The MCP Inspector's CLI (pinned, scripts/testedClients; run on the Node 22 it needs) against the
 * real daemon on both engines, with a client's token in its `--header`: it connects in both protocol
 * eras (`legacy` negotiates 2025-11-25 with a session, `modern` 2026-07-28 with none), lists the
 * tools the client may use, and calls one, which runs as that client. The fake extension stands in
 * for the browser. The Inspector runs with a home folder of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROCESS_SEQUENCE_TIMEOUT_MS } from '../../helpers/timing'
import { markPageContent } from '../../../src/protocol/pageContent'
import { node22Binary } from '../../helpers/conformance'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { connectMcp } from '../../helpers/mcpClient'
import {
  isolatedHome,
  runTestedClient,
  testedClients,
  type IsolatedHome,
  type TestedClients,
} from '../../helpers/testedClients'
import { runCli } from '../cli/runCli'
import { auditEntries, startFixture, type Fixture } from '../toolcall/fixture'

const ERAS = [
  { era: 'legacy', revision: '2025-11-25' },
  { era: 'modern', revision: '2026-07-28' },
] as const

describe.each(ENGINES)('the MCP Inspector CLI against bridge (%s engine)', (engine) => {
  let fx: Fixture
  let ext: FakeExtension
  let clients: TestedClients
  let node22: string
  let home: IsolatedHome
  let token: string

  beforeAll(async () => {
    ;[clients, node22, fx] = await Promise.all([
      testedClients(),
      node22Binary(),
      startFixture(engine, {
        plugins: [{ name: 'notes', tools: [{ name: 'list_notes' }, { name: 'delete_note' }] }],
        permissions: { notes: { permission: 'auto' } },
      }),
    ])
    const added = await runCli(
      ['client', 'add', 'inspector', '--json', '--port', String(fx.daemon.port)],
      fx.configDir,
    )
    expect(added.code, added.stderr).toBe(0)
    token = (JSON.parse(added.stdout) as { token: string }).token
    ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    home = isolatedHome()
  }, 600_000)
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
    home?.remove()
  })

  /** `mcp-inspector --cli <url> ... --format json`: one JSON object on stdout (the result or an error). */
  const inspect = async (args: string[], bearer = token) => {
    const run = await runTestedClient(
      node22,
      [
        clients.inspector,
        '--cli',
        `${fx.daemon.url}/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${bearer}`,
        '--stored-auth-only',
        '--format',
        'json',
        ...args,
      ],
      home,
    )
    const out = run.stdout.trim() || run.stderr.trim()
    let body: unknown
    try {
      body = JSON.parse(out)
    } catch {
      throw new Error(`the Inspector printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`)
    }
    return { code: run.code, body: body as { result?: Record<string, unknown>; error?: { message: string } } }
  }

  it.each(ERAS)('connects in the $era era, speaking $revision', async ({ era, revision }) => {
    const { code, body } = await inspect(['--method', 'initialize', '--protocol-era', era])
    expect(code).toBe(0)
    expect(body.result).toMatchObject({ protocolVersion: revision, serverInfo: { name: 'bridge' } })
  })

  it.each(ERAS)('lists the tools the client may use in the $era era', async ({ era }) => {
    const session = await connectMcp({ url: fx.daemon.url, secret: token }, 'inspector-reference')
    const expected = (await session.client.listTools()).tools.map((tool) => tool.name)
    await session.close()
    expect(expected).toEqual(['notes_list_notes', 'notes_delete_note'])
    const { code, body } = await inspect(['--method', 'tools/list', '--protocol-era', era])
    expect(code).toBe(0)
    const tools = (body.result?.tools ?? []) as { name: string }[]
    expect(tools.map((tool) => tool.name)).toEqual(expected)
  })

  it.each(ERAS)('calls a tool in the $era era, as the client its token names', async ({ era }) => {
    const calling = inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'notes_list_notes',
      '--protocol-era',
      era,
    ])
    const dispatch = await ext.nextDispatch()
    expect(dispatch.params).toMatchObject({ plugin: 'notes', tool: 'list_notes', client: 'inspector' })
    dispatch.succeed({ notes: [era] })
    const { code, body } = await calling
    expect(code).toBe(0)
    expect(body.result).toMatchObject({
      content: [{ type: 'text', text: markPageContent(JSON.stringify({ notes: [era] })) }],
    })
    const [latest] = (await auditEntries(fx.daemon)).filter((entry) => entry.tool === 'notes_list_notes')
    expect(latest).toMatchObject({ client: 'inspector', success: true })
  })

  it(
    'runs seven commands in a row in the legacy era, one session each, without hitting the session limit',
    { timeout: PROCESS_SEQUENCE_TIMEOUT_MS },
    async () => {
      // Each command opens a session and leaves (its event stream closes, no DELETE): a session that
      // ended is replaced, not counted against the 5 a minute.
      for (let command = 1; command <= 7; command++) {
        const { code, body } = await inspect(['--method', 'tools/list', '--protocol-era', 'legacy'])
        expect({ command, code, error: body.error }).toEqual({ command, code: 0, error: undefined })
      }
    },
  )

  it('reports the daemon’s refusal of a wrong token', async () => {
    const { code, body } = await inspect(['--method', 'tools/list'], '0'.repeat(64))
    expect(code).not.toBe(0)
    expect(body.error?.message).toContain('a valid bearer token is required')
  })
})

/**
 * An agent that lists no tool is told why: the `instructions` of the `initialize` result (2025-11-25,
 * the MCP SDK v1 client) and of `server/discover` (2026-07-28, the v2 client) say that no tool is on
 * yet and where the person turns tools on; once a tool is on, they say that unlisted tools are off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { connectMcp } from '../../helpers/mcpClient'
import { connectMcpV2 } from '../../helpers/mcpClientV2'
import { runCli } from '../cli/runCli'

describe('the MCP instructions', () => {
  let daemon: RunningDaemon
  let token: string

  beforeAll(async () => {
    daemon = await startDaemon()
    const added = await runCli(
      ['client', 'add', 'agent', '--json', '--port', String(daemon.port)],
      daemon.configDir,
    )
    expect(added.code, added.stderr).toBe(0)
    token = (JSON.parse(added.stdout) as { token: string }).token
  }, 60_000)
  afterAll(async () => {
    await daemon?.stop()
  })

  const v1 = async () => {
    const mcp = await connectMcp({ url: daemon.url, secret: token }, 'agent-v1')
    try {
      return { instructions: mcp.client.getInstructions(), tools: (await mcp.client.listTools()).tools }
    } finally {
      await mcp.close()
    }
  }
  const v2 = async () => {
    const mcp = await connectMcpV2(daemon, token)
    try {
      const discovered = mcp.sent.map((s) => s.method)
      return { instructions: mcp.client.getInstructions(), discovered }
    } finally {
      await mcp.close()
    }
  }

  it('tells an agent that sees no tool that none is on yet and that the person turns them on in the side panel', async () => {
    const session = await v1()
    expect(session.tools).toEqual([])
    expect(session.instructions).toMatch(/^bridge works in the person's own browser, but no tools are on yet/)
    expect(session.instructions).toContain('side panel')
    expect(session.instructions).toContain('Turn on core browser tools')
    const stateless = await v2()
    expect(stateless.discovered).toContain('server/discover')
    expect(stateless.instructions).toBe(session.instructions)
  })

  it('says unlisted tools are off once the person has turned some on', async () => {
    const on = await runCli(
      ['config', 'set', 'plugin-permission.browser', 'ask', '--port', String(daemon.port)],
      daemon.configDir,
    )
    expect(on.code, on.stderr).toBe(0)
    const session = await v1()
    expect(session.tools.length).toBeGreaterThan(0)
    expect(session.instructions).toMatch(
      /^bridge works in the person's own logged-in browser\. Tools that are not listed are off/,
    )
    expect((await v2()).instructions).toBe(session.instructions)
  })
})

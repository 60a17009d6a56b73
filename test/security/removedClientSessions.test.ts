/**
 * Attack: a client the user removes has a call waiting for approval (or a stream open) when it is
 * removed. Refusing its next request is not enough: the waiting call would still be put to the user
 * and run on a click. `bridge client remove --confirm` ends its sessions at once: the waiting approval
 * is withdrawn from the side panel and the call fails, while another client's session stays open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeExtension } from '../helpers/fakeExtension'
import { connectMcp, textOf } from '../helpers/mcpClient'
import { runCli } from '../integration/cli/runCli'
import { auditEntries, startFixture, type Fixture } from '../integration/toolcall/fixture'

describe('a removed client’s sessions end at once', () => {
  let fx: Fixture
  let ext: FakeExtension
  const cli = (args: string[]) => runCli([...args, '--port', String(fx.daemon.port)], fx.configDir)
  const tokenOf = async (name: string): Promise<string> =>
    (JSON.parse((await cli(['client', 'add', name, '--json'])).stdout) as { token: string }).token
  const mcpClients = async (): Promise<number> =>
    ((await (await fx.daemon.fetch('/health')).json()) as { mcpClients: number }).mcpClients

  beforeAll(async () => {
    fx = await startFixture(
      'node',
      { permissions: { browser: { tools: { browser_navigate: 'ask' } } } },
      { BRIDGE_APPROVAL_TIMEOUT_MS: '60000' },
    )
    ext = await FakeExtension.connect(fx.daemon)
  })
  afterAll(async () => {
    await ext?.close()
    await fx?.stop()
  })

  it('withdraws its waiting approval and fails the call; other clients keep their sessions', async () => {
    const leaky = await connectMcp({ url: fx.daemon.url, secret: await tokenOf('leaky') }, 'leaky')
    const other = await connectMcp({ url: fx.daemon.url, secret: await tokenOf('other') }, 'other')
    await expect.poll(mcpClients).toBe(2)
    // The session ends with the call unanswered: whatever the client makes of it, it is not a result.
    let outcome = ''
    void leaky.client.callTool({ name: 'browser_navigate', arguments: { url: 'https://example.com' } }).then(
      (result) => (outcome = textOf(result)),
      (error: unknown) => (outcome = String(error)),
    )
    const request = await ext.waitFor('confirmation.request')
    expect(request.params).toMatchObject({ client: 'leaky', tool: 'browser_navigate' })

    expect((await cli(['client', 'remove', 'leaky', '--confirm'])).code).toBe(0)
    const cancel = await ext.waitFor('confirmation.cancel', () => true, 5_000)
    expect(cancel.params).toMatchObject({ id: request.params?.id })
    expect(outcome).not.toContain('navigated')
    await expect.poll(mcpClients).toBe(1)
    const entry = (await auditEntries(fx.daemon)).find((e) => e.tool === 'browser_navigate')
    expect(entry).toMatchObject({ success: false, client: 'leaky', error: { code: 'cancelled' } })
    expect(ext.dispatches).toEqual([])

    expect((await other.client.listTools()).tools.length).toBeGreaterThan(0)
    await other.close()
    await leaky.close().catch(() => undefined)
  })
})

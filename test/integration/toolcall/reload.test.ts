import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ENGINES } from '../../helpers/daemon'
import { FakeExtension, READY } from '../../helpers/fakeExtension'
import { connectMcp } from '../../helpers/mcpClient'
import { startFixture, type Fixture } from './fixture'

const notes = { name: 'notes', tools: [{ name: 'list_notes' }] }

describe.each(ENGINES)('reloads seen from the tool call path (%s engine)', (engine) => {
  let fx: Fixture | undefined
  afterEach(async () => {
    await fx?.stop()
    fx = undefined
  })

  it('sends sync.full, plugins.changed and tools/list_changed after POST /reload', async () => {
    fx = await startFixture(engine, { plugins: [notes], permissions: { notes: { permission: 'auto' } } })
    const ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    const mcp = await connectMcp(fx.daemon)
    const changed = mcp.nextListChanged()
    expect((await fx.daemon.fetch('/reload', { method: 'POST' })).status).toBe(200)
    await changed
    expect((await ext.waitFor('sync.full')).params?.plugins).toHaveLength(1)
    expect((await ext.waitFor('plugins.changed')).params?.plugins).toHaveLength(1)
    // Production mode: no plugin.update, the side panel marks old tabs instead.
    expect(ext.received.filter((m) => m.method === 'plugin.update')).toEqual([])
    await mcp.close()
    await ext.close()
  })

  it('announces a rebuilt plugin with plugin.update in dev mode', async () => {
    fx = await startFixture(
      engine,
      { plugins: [notes], permissions: { notes: { permission: 'auto' } } },
      { BRIDGE_DEV: '1' },
    )
    const ext = await FakeExtension.connect(fx.daemon, { tabs: { notes: READY } })
    const before = (ext.syncFull?.params?.plugins as { adapterHash: string }[])[0]?.adapterHash
    writeFileSync(
      join(fx.configDir, 'plugin-notes', 'dist', 'adapter.iife.js'),
      '(() => { /* rebuilt */ })()\n',
    )
    await fx.daemon.fetch('/reload', { method: 'POST' })
    const update = await ext.waitFor('plugin.update')
    expect(update.params).toMatchObject({ name: 'notes' })
    expect(update.params?.adapterHash).not.toBe(before)
    await ext.close()
  })
})

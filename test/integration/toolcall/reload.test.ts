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
    // Nothing was rebuilt: no plugin.update.
    expect(ext.received.filter((m) => m.method === 'plugin.update')).toEqual([])
    await mcp.close()
    await ext.close()
  })

  it.each([
    ['production', {}],
    ['dev', { BRIDGE_DEV: '1' }],
  ])('announces a rebuilt local plugin with plugin.update in %s mode', async (_mode, env) => {
    fx = await startFixture(engine, { plugins: [notes], permissions: { notes: { permission: 'auto' } } }, env)
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

// The adapter bundle's channel, built with the real build and run in a page stub: the channel is
// opened before any plugin module runs, so a plugin whose code throws while loading in the page still
// holds its name (a page's own hello for it comes second and is refused), and answers "not ready".
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPlugin } from '../../../src/authoring/buildPlugin'
import { copyFixture, tempDir } from '../../fixtures/plugins'
import { createPageStub } from '../../fixtures/plugins/pageStub'

let tmp: ReturnType<typeof tempDir>
let bundle: string

beforeAll(async () => {
  tmp = tempDir('channel')
  const dir = copyFixture('good', tmp.dir)
  // Fine at build time (Node has no document), throws in the page.
  writeFileSync(
    join(dir, 'src', 'index.ts'),
    `import { definePlugin, defineTool, Type } from 'bridge/sdk'
if (typeof document !== 'undefined') throw new Error('this plugin breaks in the page')
export default definePlugin({
  tools: [defineTool({ name: 'ping', description: 'd', input: Type.Object({}), handle: () => 'pong' })],
})
`,
  )
  bundle = (await buildPlugin(dir)).adapterFile
})
afterAll(() => tmp?.cleanup())

describe('adapter channel', () => {
  it('is opened before the plugin’s code runs: a plugin that throws while loading still holds its name', async () => {
    const page = createPageStub('http://127.0.0.1:1/')
    expect(() => page.inject(bundle)).toThrow('this plugin breaks in the page')
    expect(page.hellos.map((h) => h.plugin)).toEqual(['good'])
    const adapter = page.adapter('good')
    expect(await adapter.isReady()).toBe(false)
    expect(await adapter.invoke('ping', {}, 'd1')).toMatchObject({
      ok: false,
      error: { code: 'plugin_not_loaded' },
    })
  })
})

// A plugin author declares MCP annotations with defineTool({ annotations }): `bridge-plugin build`
// writes them into dist/tools.json, `bridge-plugin inspect` shows them, and a wrong one fails the
// build with the tool and the key named. Real processes, as an author runs them.
import { runCommand } from '../../helpers/runCommand'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../../helpers/daemon'
import { copyFixture, tempDir } from '../../fixtures/plugins'

const PLUGIN_CLI = join(ROOT, 'dist', 'cli', 'bridgePlugin.js')

let tmp: ReturnType<typeof tempDir>
beforeAll(() => {
  tmp = tempDir('annotations')
})
afterAll(() => tmp?.cleanup())

const run = (args: string[], cwd: string) =>
  runCommand(
    process.execPath,
    [PLUGIN_CLI, ...args],
    { ...process.env, BRIDGE_CONFIG_DIR: join(tmp.dir, 'config'), BRIDGE_PORT: '1', NO_COLOR: '1' },
    undefined,
    cwd,
  )

const source = (annotations: string) => `import { definePlugin, defineTool, Type } from 'bridge/sdk'
export default definePlugin({
  tools: [
    defineTool({
      name: 'list_notes',
      description: 'List the notes',
      input: Type.Object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      handle: () => [],
    }),
    defineTool({
      name: 'delete_note',
      description: 'Delete a note',
      input: Type.Object({ id: Type.String() }),
      annotations: ${annotations},
      handle: () => ({ deleted: true }),
    }),
  ],
})
`

describe('defineTool annotations', { timeout: 90_000 }, () => {
  it('are written to tools.json and shown by bridge-plugin inspect', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'ok'))
    writeFileSync(join(dir, 'src', 'index.ts'), source('{ destructiveHint: true, idempotentHint: true }'))
    const build = await run(['build', '--no-register', '--no-reload'], dir)
    expect(build.code, build.out).toBe(0)
    const manifest = JSON.parse(readFileSync(join(dir, 'dist', 'tools.json'), 'utf8')) as {
      tools: { name: string; annotations?: unknown }[]
    }
    expect(manifest.tools.map((tool) => [tool.name, tool.annotations])).toEqual([
      ['list_notes', { readOnlyHint: true, openWorldHint: false }],
      ['delete_note', { destructiveHint: true, idempotentHint: true }],
    ])
    const inspect = await run(['inspect'], dir)
    expect(inspect.code).toBe(0)
    expect(inspect.out).toContain(
      '  good_list_notes  List notes\n    List the notes\n    annotations: readOnlyHint true, openWorldHint false\n',
    )
    expect(inspect.out).toContain(
      '  good_delete_note  Delete note\n    Delete a note\n    annotations: destructiveHint true, idempotentHint true\n',
    )
  })

  it('fail the build when a hint is unknown or not a boolean, naming the tool', async () => {
    const dir = copyFixture('good', join(tmp.dir, 'bad'))
    writeFileSync(join(dir, 'src', 'index.ts'), source('{ dangerousHint: true }'))
    const unknown = await run(['build', '--no-register', '--no-reload'], dir)
    expect(unknown.code).toBe(1)
    expect(unknown.out).toMatch(/tool "delete_note" annotations\.dangerousHint is not a tool annotation/)
    writeFileSync(join(dir, 'src', 'index.ts'), source("{ readOnlyHint: 'yes' }"))
    const wrongType = await run(['build', '--no-register', '--no-reload'], dir)
    expect(wrongType.code).toBe(1)
    expect(wrongType.out).toMatch(/tool "delete_note" annotations\.readOnlyHint must be true or false/)
  })
})

import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildPlugin } from '../../../src/authoring/buildPlugin'
import { PluginBuildError } from '../../../src/authoring/errors'
import { SDK_VERSION } from '../../../src/protocol/constants'
import { copyFixture, tempDir, type FixtureName } from '../../fixtures/plugins'

let tmp: ReturnType<typeof tempDir>
beforeEach(() => {
  tmp = tempDir('build')
})
afterEach(() => tmp.cleanup())

async function buildError(fixture: FixtureName): Promise<string> {
  const error = await buildPlugin(copyFixture(fixture, tmp.dir)).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(PluginBuildError)
  return (error as Error).message
}

describe('buildPlugin', () => {
  it('writes dist/tools.json with plain JSON Schemas and the adapter bundle', async () => {
    const dir = copyFixture('good', tmp.dir)
    const out = await buildPlugin(dir)
    const manifest = JSON.parse(readFileSync(join(dir, 'dist', 'tools.json'), 'utf8'))
    expect(manifest).toMatchObject({
      name: 'good',
      version: '1.2.3',
      sdkVersion: SDK_VERSION,
      displayName: 'Good Fixture',
      urlPatterns: ['https://example.com/*', 'http://127.0.0.1/*'],
    })
    expect(manifest.iconSvg).toContain('<circle')
    expect(manifest.tools.map((t: { name: string }) => t.name)).toEqual([
      'echo',
      'refuse',
      'crash',
      'fetch_me',
    ])
    expect(manifest.tools[0]).toEqual({
      name: 'echo',
      displayName: 'Echo text',
      description: 'Repeat the text',
      inputSchema: {
        type: 'object',
        required: ['text'],
        properties: {
          text: { type: 'string', minLength: 1, description: 'what to repeat' },
          times: { type: 'integer', minimum: 1, maximum: 3 },
          mode: {
            anyOf: [
              { type: 'string', const: 'plain' },
              { type: 'string', const: 'loud' },
            ],
          },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
      outputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    })
    // Tools without a displayName get one from their name; without output, no outputSchema.
    expect(manifest.tools[1]).toEqual({
      name: 'refuse',
      displayName: 'Refuse',
      description: 'Always fails with a ToolError',
      inputSchema: { type: 'object', properties: {} },
    })
    const adapter = readFileSync(join(dir, 'dist', 'adapter.iife.js'), 'utf8')
    expect(adapter).toContain('bridge-adapter-channel') // the runtime's channel hello
    expect(adapter).not.toContain('__bridgeAdapter:')
    expect(adapter).toContain('toUpperCase') // the fixture's second module is bundled
    expect(out.adapterBytes).toBe(Buffer.byteLength(adapter))
    expect(statSync(join(dir, 'dist', 'tools.json')).mode & 0o777).toBe(0o644)
  })

  it('uses bridge.name over the package name', async () => {
    const dir = copyFixture('good', tmp.dir)
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    pkg.bridge.name = 'renamed'
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg))
    expect((await buildPlugin(dir)).manifest.name).toBe('renamed')
  })

  it('rejects a plugin name that breaks the pattern', async () => {
    expect(await buildError('bad-name')).toMatch(
      /plugin name "Bad_Name" must be lowercase letters and digits/,
    )
  })

  it('rejects a reserved plugin name', async () => {
    expect(await buildError('reserved-name')).toMatch(/plugin name "browser" is reserved/)
  })

  it('rejects an invalid url pattern and quotes it', async () => {
    expect(await buildError('bad-pattern')).toMatch(
      /bridge\.urlPatterns: "https:\/\/exa\*mple\.com\/\*" is not a valid match pattern: "\*" in the host/,
    )
  })

  it('names a missing bridge field', async () => {
    expect(await buildError('missing-field')).toMatch(/"bridge\.displayName" is missing/)
  })

  it('names a missing entry file', async () => {
    expect(await buildError('missing-entry')).toMatch(/entry file src\/main\.ts not found/)
  })

  it('fails on Type.Transform naming the tool and the property', async () => {
    const message = await buildError('transform')
    expect(message).toMatch(
      /tool "schedule" input schema at "properties\.when": Type\.Transform cannot be serialized/,
    )
  })

  it('explains that module-level code cannot use the page', async () => {
    expect(await buildError('page-at-load')).toMatch(
      /failed when loaded: ReferenceError: document is not defined.*isReady\(\) or handle\(\)/,
    )
  })

  it('lets module-level code use URL and text helpers', async () => {
    const dir = copyFixture('good', tmp.dir)
    writeFileSync(
      join(dir, 'src', 'index.ts'),
      `import { definePlugin, defineTool, Type } from 'bridge/sdk'
const API = new URL('/api/v2/', 'https://example.com').pathname
const BYTES = new TextEncoder().encode('abc').length
export default definePlugin({ tools: [defineTool({ name: 'api', description: API + ' ' + BYTES, input: Type.Object({}), handle: () => API })] })
`,
    )
    expect((await buildPlugin(dir)).manifest.tools[0]?.description).toBe('/api/v2/ 3')
  })

  it('reports a syntax error with file and line', async () => {
    const dir = copyFixture('good', tmp.dir)
    writeFileSync(join(dir, 'src', 'shout.ts'), 'export const shout = (text: string) => {{\n')
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(
      /bundling src\/index\.ts failed:\n\s+src\/shout\.ts:\d+:\d+: /,
    )
  })

  it('rejects a missing package.json, version and bridge field', async () => {
    expect(await buildPlugin(tmp.dir).catch((e: Error) => e.message)).toMatch(/no package\.json in/)
    const dir = copyFixture('good', tmp.dir)
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bridge-plugin-x', bridge: {} }))
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(/"version" is missing/)
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bridge-plugin-x', version: '1.0.0' }))
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(/"bridge" is missing/)
  })

  it('rejects tools with bad names, duplicates and no description', async () => {
    const dir = copyFixture('good', tmp.dir)
    const write = (tools: string) =>
      writeFileSync(
        join(dir, 'src', 'index.ts'),
        `import { definePlugin, defineTool, Type } from 'bridge/sdk'\nexport default definePlugin({ tools: [${tools}] })\n`,
      )
    const tool = (name: string, description = 'd') =>
      `defineTool({ name: '${name}', description: '${description}', input: Type.Object({}), handle: () => 1 })`
    write(tool('List-Notes'))
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(
      /tool "List-Notes" needs a name of lowercase words/,
    )
    write(`${tool('a')}, ${tool('a')}`)
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(/two tools are named "a"/)
    write(tool('a', ' '))
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(/tool "a" needs a description/)
    write('')
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(/the plugin has no tools/)
  })

  it('fails on a schema option strict JSON Schema does not know', async () => {
    const dir = copyFixture('good', tmp.dir)
    writeFileSync(
      join(dir, 'src', 'index.ts'),
      `import { definePlugin, defineTool, Type } from 'bridge/sdk'
export default definePlugin({ tools: [defineTool({ name: 'a', description: 'd', input: Type.Object({ x: Type.String({ colour: 'red' }) }), handle: () => 1 })] })
`,
    )
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(
      /^tool "a" input schema: strict mode: unknown keyword: "colour" \(the daemon validates inputs with strict JSON Schema/,
    )
  })

  it('refuses an icon with active content', async () => {
    const dir = copyFixture('good', tmp.dir)
    writeFileSync(join(dir, 'icon.svg'), '<svg onload="alert(1)"></svg>')
    expect(await buildPlugin(dir).catch((e: Error) => e.message)).toMatch(
      /icon\.svg: the icon is not plain SVG: it has an event handler \(onload on <svg>\)/,
    )
  })
})

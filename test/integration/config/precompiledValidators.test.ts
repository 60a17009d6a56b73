/**
 * The built daemon validates with schemas compiled at build time (src/validationPrecompiled.ts,
 * scripts/precompileValidators.mjs), the sources compile them on first use: both must answer alike,
 * messages included. Each case is checked in the built daemon and, in this process, from the sources.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readConfigFile } from '../../../src/config/configFile'
import { loadPlugin } from '../../../src/plugins/loadPlugin'
import { runDaemonToExit, SERVER_JS, startDaemon, tempConfigDir, waitForBuild } from '../../helpers/daemon'

describe('validators compiled at build time', () => {
  it('are in the daemon bundle', async () => {
    await waitForBuild(SERVER_JS)
    expect(readFileSync(SERVER_JS, 'utf8')).toContain('// precompiled:validationPrecompiled.generated.js')
  })

  it('refuse an invalid config.json with the message the sources give', async () => {
    const configDir = tempConfigDir()
    const file = join(configDir, 'config.json')
    writeFileSync(
      file,
      JSON.stringify({ port: 'x', permissions: { p: { permission: 'sometimes' } }, localPlugins: [''] }),
      { mode: 0o600 },
    )
    let expected = ''
    try {
      readConfigFile(file)
    } catch (error) {
      expected = (error as Error).message
    }
    expect(expected).toMatch(/port must be integer/)
    const result = await runDaemonToExit({ configDir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(expected)
  })

  it('check a plugin tool schema against the meta-schema as the sources do', async () => {
    const configDir = tempConfigDir()
    const plugin = join(configDir, 'bad-schema')
    mkdirSync(join(plugin, 'dist'), { recursive: true })
    writeFileSync(
      join(plugin, 'package.json'),
      JSON.stringify({ name: 'bridge-plugin-badschema', version: '1.0.0' }),
    )
    const tool = (name: string, inputSchema: object) => ({
      name,
      displayName: name,
      description: `Tool ${name}`,
      inputSchema,
    })
    writeFileSync(
      join(plugin, 'dist/tools.json'),
      JSON.stringify({
        name: 'badschema',
        version: '1.0.0',
        sdkVersion: '1.0.0',
        displayName: 'Bad schema',
        urlPatterns: ['http://127.0.0.1/bad/*'],
        tools: [
          tool('fine', { type: 'object', properties: { text: { type: 'string', maxLength: 5 } } }),
          tool('broken', { type: 'object', properties: { text: { type: 'strin', minLength: -1 } } }),
        ],
      }),
    )
    writeFileSync(join(plugin, 'dist/adapter.iife.js'), '(()=>{})()\n')
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ localPlugins: [plugin] }), { mode: 0o600 })
    const fromSources = loadPlugin(plugin, 'local')
    expect(fromSources.ok).toBe(false)
    const expected = fromSources.ok ? '' : fromSources.error
    expect(expected).toMatch(/schema is invalid/)
    const daemon = await startDaemon({ configDir })
    try {
      const health = (await (await daemon.fetch('/health')).json()) as {
        failedPlugins: Array<{ path: string; error: string }>
      }
      expect(health.failedPlugins).toEqual([{ path: plugin, error: expected }])
    } finally {
      await daemon.stop()
    }
  })
})

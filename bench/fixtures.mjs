// Plugin folders and config directories for the benchmark: each plugin is what `bridge-plugin build`
// leaves (package.json, dist/tools.json, dist/adapter.iife.js), so the daemon loads it as a local plugin.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const TOOLS_PER_PLUGIN = 20

export function pluginName(i) {
  return `bench${String(i).padStart(3, '0')}`
}

/** Tool `echo` plus 19 others, each with a small but real input schema. */
export function pluginTools(name) {
  return Array.from({ length: TOOLS_PER_PLUGIN }, (_, t) => ({
    name: t === 0 ? 'echo' : `action_${t}`,
    displayName: t === 0 ? 'Echo' : `Action ${t}`,
    description: `${t === 0 ? 'Echoes its input' : `Does action ${t}`} in the ${name} site for the signed-in user`,
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', maxLength: 1000, description: 'What to send' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'At most this many' },
        order: { type: 'string', enum: ['newest', 'oldest'] },
      },
      required: ['text'],
      additionalProperties: false,
    },
  }))
}

function writePlugin(dir, name) {
  mkdirSync(join(dir, 'dist'), { recursive: true })
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `bridge-plugin-${name}`, version: '1.0.0', bridge: { displayName: name } }),
  )
  const manifest = {
    name,
    version: '1.0.0',
    sdkVersion: '1.0.0',
    displayName: name,
    urlPatterns: [`http://127.0.0.1/${name}/*`],
    tools: pluginTools(name),
  }
  writeFileSync(join(dir, 'dist/tools.json'), JSON.stringify(manifest))
  writeFileSync(join(dir, 'dist/adapter.iife.js'), `(()=>{globalThis.__${name}=1})()\n`)
}

/**
 * A config directory with `count` local plugins, every tool on `auto`. Returns its path, the plugin
 * names and the MCP tool list a floor would serve for the same plugins (for tools/list).
 */
export function createConfigDir(count) {
  const dir = mkdtempSync(join(tmpdir(), `bridge-bench-${count}-`))
  const names = Array.from({ length: count }, (_, i) => pluginName(i))
  const pluginsDir = join(dir, 'plugins')
  for (const name of names) writePlugin(join(pluginsDir, name), name)
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      localPlugins: names.map((name) => join(pluginsDir, name)),
      permissions: Object.fromEntries(names.map((name) => [name, { permission: 'auto' }])),
    }),
    { mode: 0o600 },
  )
  const mcpTools = names.flatMap((name) =>
    pluginTools(name).map((t) => ({
      name: `${name}_${t.name}`,
      description: t.description,
      inputSchema: t.inputSchema,
    })),
  )
  const toolsFile = join(dir, 'floor-tools.json')
  writeFileSync(toolsFile, JSON.stringify(mcpTools))
  return { dir, names, toolsFile }
}

/**
 * Plugins as discovery loads them (src/plugins/types.ts) and a catalog source over them, for unit
 * tests of the tool catalog and of what sits on it (client scopes, config methods, tool lookup): no
 * folder on disk, no daemon.
 *
 * @example
 *   const catalog = createToolCatalog(
 *     catalogSource({ plugins: [notesPlugin()], permissions: { notes: { permission: 'auto' } } }),
 *   )
 */
import type { CatalogBrowserTool, CatalogSource } from '../../src/catalog/toolCatalog'
import type { PermissionsConfig } from '../../src/config/permissions'
import type { LoadedPlugin } from '../../src/plugins/types'
import type { FailedPlugin, ToolAnnotations, ToolManifest } from '../../src/protocol/manifest'
import { BROWSER_TOOLS } from '../../src/tools'

/** A loaded plugin named `name`, with plain values for every other field; `overrides` replaces any of them. */
export function loadedPlugin(name: string, overrides: Partial<LoadedPlugin> = {}): LoadedPlugin {
  return {
    name,
    packageName: `bridge-plugin-${name}`,
    displayName: name,
    version: '1.0.0',
    source: 'local',
    path: `/home/u/${name}`,
    sdkVersion: '1.0.0',
    urlPatterns: ['https://example.com/*'],
    tools: [],
    adapterFile: `${name}.js`,
    adapterHash: 'abc',
    validate: () => ({ ok: true }),
    ...overrides,
  }
}

/** A plugin tool whose input is any object, with `annotations` when given. */
export function pluginTool(
  name: string,
  displayName: string,
  description: string,
  annotations?: ToolAnnotations,
): ToolManifest {
  return {
    name,
    displayName,
    description,
    inputSchema: { type: 'object' },
    ...(annotations ? { annotations } : {}),
  }
}

/** The notes plugin of the catalog tests: `list_notes` and `delete_note`, each with the annotations given. */
export function notesPlugin(
  opts: {
    version?: string
    annotations?: { list_notes?: ToolAnnotations; delete_note?: ToolAnnotations }
  } = {},
): LoadedPlugin {
  return loadedPlugin('notes', {
    displayName: 'Notes',
    version: opts.version ?? '1.0.0',
    urlPatterns: ['https://notes.example/*'],
    tools: [
      pluginTool('list_notes', 'List notes', 'Lists notes', opts.annotations?.list_notes),
      pluginTool('delete_note', 'Delete note', 'Deletes a note', opts.annotations?.delete_note),
    ],
  })
}

/**
 * A catalog source over `plugins`, whose permissions a test may change between calls
 * (`permissionsNow`). By default: no plugin failed, every built-in tool, permissions honoured.
 */
export function catalogSource(opts: {
  plugins: readonly LoadedPlugin[]
  permissions?: PermissionsConfig
  browserTools?: readonly CatalogBrowserTool[]
  failedPlugins?: FailedPlugin[]
  skipPermissions?: boolean
}): CatalogSource & { permissionsNow: PermissionsConfig } {
  const source = {
    permissionsNow: opts.permissions ?? {},
    plugins: () => opts.plugins,
    failedPlugins: () => opts.failedPlugins ?? [],
    browserTools: () => opts.browserTools ?? BROWSER_TOOLS,
    permissions: () => source.permissionsNow,
    skipPermissions: () => opts.skipPermissions ?? false,
  }
  return source
}

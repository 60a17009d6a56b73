/**
 * What discovery produces and the rest of the daemon consumes: the loaded plugins with their tools
 * and cached input validators, plus what failed and why.
 */
import type { DiscoveryError, FailedPlugin, PluginSource, ToolManifest } from '../protocol/manifest'
import type { InputCheck } from '../validation'

export type { InputCheck } from '../validation'

export interface LoadedPlugin {
  name: string
  /** The package the plugin comes from, scope included (`@bridge-mcp/bridge-plugin-notes`); its name decides `name`. */
  packageName: string
  displayName: string
  version: string
  source: PluginSource
  /** The plugin's folder (a local folder, or the package folder under the npm global root). */
  path: string
  sdkVersion: string | null
  urlPatterns: string[]
  iconSvg?: string
  tools: ToolManifest[]
  /** File name under `<config>/extension/adapters/`, e.g. `notes.js`. */
  adapterFile: string
  /** sha256 hex of the adapter bundle. */
  adapterHash: string
  /** Checks a call's input against the tool's JSON Schema (validators compiled once per discovery). */
  validate(toolBaseName: string, input: unknown): InputCheck
}

export interface PluginRegistrySnapshot {
  /** Sorted by name; names are unique. */
  plugins: LoadedPlugin[]
  failedPlugins: FailedPlugin[]
  discoveryErrors: DiscoveryError[]
}

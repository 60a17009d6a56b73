/**
 * Plugin metadata shapes: the `bridge` field of a plugin's package.json, the built `dist/tools.json`,
 * and the per-plugin state the daemon sends to the extension.
 */
import { Type, type Static } from '@sinclair/typebox'

export const Permission = Type.Union([Type.Literal('off'), Type.Literal('ask'), Type.Literal('auto')])
export type Permission = Static<typeof Permission>

export const TabStateName = Type.Union([
  Type.Literal('closed'),
  Type.Literal('unavailable'),
  Type.Literal('ready'),
])
export type TabStateName = Static<typeof TabStateName>

export const PluginSource = Type.Union([Type.Literal('local'), Type.Literal('npm')])
export type PluginSource = Static<typeof PluginSource>

/** JSON Schema object as stored in tools.json (validated by ajv when compiled). */
export const JsonSchemaObject = Type.Record(Type.String(), Type.Unknown())

/** `bridge` field of a plugin's package.json. */
export const PackageBridgeField = Type.Object({
  name: Type.Optional(Type.String()),
  displayName: Type.String({ minLength: 1 }),
  urlPatterns: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  icon: Type.Optional(Type.String()),
  entry: Type.Optional(Type.String()),
})
export type PackageBridgeField = Static<typeof PackageBridgeField>

/**
 * MCP tool annotations, as hints for agents and the side panel: whether a tool only reads, may destroy
 * data, may be repeated without further effect, and reaches the open web. They never change a
 * tool's permission: a read-only tool set to `ask` still asks.
 */
export const ToolAnnotations = Type.Object(
  {
    readOnlyHint: Type.Optional(Type.Boolean()),
    destructiveHint: Type.Optional(Type.Boolean()),
    idempotentHint: Type.Optional(Type.Boolean()),
    openWorldHint: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type ToolAnnotations = Static<typeof ToolAnnotations>

export const ToolManifest = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  inputSchema: JsonSchemaObject,
  outputSchema: Type.Optional(JsonSchemaObject),
  annotations: Type.Optional(ToolAnnotations),
})
export type ToolManifest = Static<typeof ToolManifest>

/** `dist/tools.json`, written by `bridge-plugin build`. */
export const PluginManifest = Type.Object({
  name: Type.String(),
  version: Type.String(),
  sdkVersion: Type.Union([Type.String(), Type.Null()]),
  displayName: Type.String(),
  urlPatterns: Type.Array(Type.String(), { minItems: 1 }),
  iconSvg: Type.Optional(Type.String()),
  tools: Type.Array(ToolManifest),
})
export type PluginManifest = Static<typeof PluginManifest>

export const ToolState = Type.Object({
  name: Type.String({ description: 'base tool name for plugin tools; full name for browser tools' }),
  displayName: Type.String(),
  description: Type.String(),
  permission: Permission,
  annotations: Type.Optional(ToolAnnotations),
})
export type ToolState = Static<typeof ToolState>

/** Why a plugin needs a review again: what differs from the build that was reviewed. */
export const ReviewChange = Type.Union([
  Type.Literal('package'),
  Type.Literal('version'),
  Type.Literal('adapter'),
  Type.Literal('unrecorded'),
])
export type ReviewChange = Static<typeof ReviewChange>

/** A loaded plugin as the extension sees it (sync.full, plugin.update, plugins.changed). */
export const PluginState = Type.Object({
  name: Type.String(),
  displayName: Type.String(),
  version: Type.String(),
  source: PluginSource,
  sdkVersion: Type.Union([Type.String(), Type.Null()]),
  urlPatterns: Type.Array(Type.String()),
  /** File name under `<config>/extension/adapters/`, e.g. `notes.js`. */
  adapterFile: Type.String(),
  /** sha256 hex of the adapter bundle: the extension re-injects when it changes. */
  adapterHash: Type.String(),
  iconSvg: Type.Optional(Type.String()),
  /** Plugin default permission as configured. */
  permission: Permission,
  /** False when a review is recorded and the installed package, version or adapter is not the reviewed one (all tools are then off). */
  reviewed: Type.Boolean(),
  /** When not reviewed: what changed since the review, and the version and package that were reviewed. */
  review: Type.Optional(
    Type.Object({
      change: ReviewChange,
      reviewedVersion: Type.String(),
      reviewedPackage: Type.Optional(Type.String()),
      /** The package installed now (differs from `reviewedPackage` when `change` is `package`). */
      installedPackage: Type.String(),
    }),
  ),
  /** Tools with their effective permission. */
  tools: Type.Array(ToolState),
  /** Local plugins: the plugin's folder (for folder.open). */
  path: Type.Optional(Type.String()),
})
export type PluginState = Static<typeof PluginState>

export const FailedPlugin = Type.Object({ path: Type.String(), error: Type.String() })
export type FailedPlugin = Static<typeof FailedPlugin>

export const DiscoveryError = Type.Object({
  source: Type.Union([Type.Literal('local'), Type.Literal('npm'), Type.Literal('config')]),
  path: Type.Optional(Type.String()),
  message: Type.String(),
})
export type DiscoveryError = Static<typeof DiscoveryError>

export const TabInfo = Type.Object({
  tabId: Type.Integer(),
  url: Type.String(),
  title: Type.String(),
  ready: Type.Boolean(),
  /**
   * False when the plugin's adapter did not start with the document (the tab was open before the
   * extension started, before the plugin was turned on, or before its adapter changed): no call runs
   * there until the tab is reloaded. Absent from older extensions.
   */
  isolated: Type.Optional(Type.Boolean()),
  /**
   * Ready tabs only: where a call would run now, 0 first (DESIGN.md section 8: the active tab of the
   * focused window, then any active tab, then the most recently focused). The daemon picks the tab
   * it shows in an approval by it.
   */
  rank: Type.Optional(Type.Integer({ minimum: 0 })),
})
export type TabInfo = Static<typeof TabInfo>

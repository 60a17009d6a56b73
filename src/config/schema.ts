/**
 * The shape of `config.json`. Unknown top-level keys are kept (a newer bridge may have written them);
 * known keys must match exactly.
 */
import { Type, type Static } from '@sinclair/typebox'
import { DEFAULT_PORT } from '../protocol/constants'
import { Permission } from '../protocol/manifest'

export const PluginPermissionConfig = Type.Object(
  {
    permission: Type.Optional(Permission),
    tools: Type.Optional(Type.Record(Type.String(), Permission)),
    reviewedVersion: Type.Optional(Type.String()),
    reviewedPackage: Type.Optional(Type.String()),
    reviewedAdapterHash: Type.Optional(Type.String()),
    reviewedPath: Type.Optional(Type.String()),
    /** `browser` only: the groups of built-in tools (beyond `core`) its default permission reaches. */
    groups: Type.Optional(Type.Array(Type.String({ pattern: '^[a-z]+$' }), { maxItems: 50 })),
  },
  { additionalProperties: false },
)
export type PluginPermissionConfig = Static<typeof PluginPermissionConfig>

/** One tool of a site (WebMCP): ask and auto hold only for the declaration the user saw (`declared`). */
export const SiteToolPermissionConfig = Type.Object(
  {
    permission: Permission,
    /** sha256 hex of the declaration (title, description, schema, annotations) when it was set. */
    declared: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  },
  { additionalProperties: false },
)
export type SiteToolPermissionConfig = Static<typeof SiteToolPermissionConfig>

/** One site (an origin) under `sites`: its default and per-tool settings. */
export const SitePermissionConfig = Type.Object(
  {
    permission: Type.Optional(Permission),
    tools: Type.Optional(Type.Record(Type.String({ maxLength: 128 }), SiteToolPermissionConfig)),
  },
  { additionalProperties: false },
)
export type SitePermissionConfig = Static<typeof SitePermissionConfig>

/** The data-flow guard (src/guard): ask (the default), block or off. */
export const FlowGuardMode = Type.Union([Type.Literal('ask'), Type.Literal('block'), Type.Literal('off')])
export type FlowGuardMode = Static<typeof FlowGuardMode>

export const FlowGuardConfig = Type.Object(
  {
    /** For every client without its own setting. */
    mode: Type.Optional(FlowGuardMode),
    /** Per client (its name in clients.json). */
    clients: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), FlowGuardMode)),
    /** Flows the user allowed always, per client: `<from origin> -> <to origin>`. */
    allowed: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 64 }),
        Type.Array(Type.String({ maxLength: 4300 }), { maxItems: 500 }),
      ),
    ),
  },
  { additionalProperties: false },
)
export type FlowGuardConfig = Static<typeof FlowGuardConfig>

export const Config = Type.Object(
  {
    localPlugins: Type.Array(Type.String({ minLength: 1 })),
    permissions: Type.Record(Type.String(), PluginPermissionConfig),
    /** The CLI's port; its range is checked by src/config/port.ts, the one port parser. */
    port: Type.Integer(),
    /** Sites' own tools (WebMCP) by origin (`https://mail.example.com`); a site not listed is off. */
    sites: Type.Optional(Type.Record(Type.String({ maxLength: 300 }), SitePermissionConfig)),
    /** Side-panel switch: ask-mode tools run as auto (off stays off). Also set by BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS=1. */
    skipPermissions: Type.Optional(Type.Boolean()),
    /** The data-flow guard's settings: `bridge config set flow-guard[.<client>] ask|block|off`. */
    flowGuard: Type.Optional(FlowGuardConfig),
    /** Folders whose files browser_upload_file and browser_drop may read by path: absolute or `~/`. Default none. */
    uploadFolders: Type.Optional(
      Type.Array(Type.String({ minLength: 1, pattern: '^(/|~/|~$|[A-Za-z]:[\\\\/])' }), { maxItems: 100 }),
    ),
  },
  { additionalProperties: true },
)
export type Config = Static<typeof Config>

/** What may be on disk: every known key is optional (missing keys take their defaults). */
export const ConfigFile = Type.Partial(Config, { additionalProperties: true })
export type ConfigFile = Static<typeof ConfigFile>

export function defaultConfig(): Config {
  return { localPlugins: [], permissions: {}, port: DEFAULT_PORT }
}

export const AuthFile = Type.Object(
  { secret: Type.String({ pattern: '^[0-9a-f]{64}$' }) },
  { additionalProperties: true },
)
export type AuthFile = Static<typeof AuthFile>

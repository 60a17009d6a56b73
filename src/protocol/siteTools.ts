/**
 * Sites' own tools (WebMCP, `document.modelContext.registerTool`): what the extension reports of the
 * tools pages declared, and what the daemon tells the extension and the side panel about them. A site
 * is an origin (`https://mail.example.com`); its tools are the page's words, never trusted: every
 * string here is capped by the schema, and the daemon neutralizes and budgets it again.
 * No node:* imports: the extension uses these types too.
 */
import { Type, type Static } from '@sinclair/typebox'
import { Permission } from './manifest'

/** Caps on what one page may declare, applied in the page's frame before anything leaves it. */
export const SITE_TOOL_LIMITS = {
  /** Tools reported per frame (more are dropped, and the site is marked as over its budget). */
  toolsPerFrame: 64,
  /** A declared name, in characters. */
  nameChars: 128,
  titleChars: 200,
  /** A description as reported (the daemon lists at most `listedDescriptionChars` of it). */
  descriptionChars: 8_000,
  /** The input schema as JSON text; a longer one makes the tool unavailable. */
  schemaChars: 16_000,
  /** A result as the frame hands it back (the daemon caps it again with the result cap). */
  resultChars: 1_000_000,
  /** What `tools/list` shows of one tool's description. */
  listedDescriptionChars: 1_000,
  /** The most one tool's schema may take in `tools/list` (as JSON); a bigger one is unavailable. */
  listedSchemaChars: 4_000,
  /** What `tools/list` may spend on one site (descriptions and schemas of all its tools). */
  listedCharsPerSite: 24_000,
  /** Frames reported per tab. */
  framesPerTab: 32,
  /** Characters of descriptions and schemas one frame may report (more tools are dropped). */
  charsPerFrame: 200_000,
  /** Characters of descriptions and schemas in one whole report (it must stay far below 10 MB). */
  charsPerReport: 4_000_000,
  /** Tabs in one report. */
  tabsPerReport: 500,
} as const

/** The hints a page declared; shown to the user, never used to lower a permission. */
export const SiteToolAnnotations = Type.Object(
  {
    readOnlyHint: Type.Optional(Type.Boolean()),
    untrustedContentHint: Type.Optional(Type.Boolean()),
    destructiveHint: Type.Optional(Type.Boolean()),
    consequentialHint: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type SiteToolAnnotations = Static<typeof SiteToolAnnotations>

/** One tool as the page declared it (the extension copies it out of the page's isolated view). */
export const DeclaredSiteTool = Type.Object({
  name: Type.String({ minLength: 1, maxLength: SITE_TOOL_LIMITS.nameChars }),
  title: Type.String({ maxLength: SITE_TOOL_LIMITS.titleChars }),
  description: Type.String({ maxLength: SITE_TOOL_LIMITS.descriptionChars + 64 }),
  /** The input schema as the page gave it, JSON text; absent when the page gave none. */
  inputSchema: Type.Optional(Type.String({ maxLength: SITE_TOOL_LIMITS.schemaChars + 64 })),
  /** True when the schema text was longer than the cap (it is then cut and unusable). */
  schemaTooLong: Type.Optional(Type.Boolean()),
  annotations: SiteToolAnnotations,
})
export type DeclaredSiteTool = Static<typeof DeclaredSiteTool>

/**
 * What a declaration's hash covers, as one text: title, description, schema text, whether the schema
 * was cut, the hints. The daemon hashes it (SHA-256, hex) for the settings that bind a declaration and
 * for `tool.dispatch`'s `declared`; the page side hashes the tool's declaration again before it runs it.
 */
export function declarationText(tool: DeclaredSiteTool): string {
  const a = tool.annotations
  const hints = [a.readOnlyHint, a.untrustedContentHint, a.destructiveHint, a.consequentialHint]
  return JSON.stringify([tool.title, tool.description, tool.inputSchema ?? null, !!tool.schemaTooLong, hints])
}

/** The tools of one frame whose origin the user turned on. */
export const SiteFrame = Type.Object({
  frameId: Type.Integer({ minimum: 0 }),
  /** The frame's origin as Chrome reported the sender (not as the page says). */
  origin: Type.String({ maxLength: 300 }),
  tools: Type.Array(DeclaredSiteTool, { maxItems: SITE_TOOL_LIMITS.toolsPerFrame }),
  /** The frame declared more tools than it may report. */
  truncated: Type.Optional(Type.Boolean()),
})
export type SiteFrame = Static<typeof SiteFrame>

export const SiteTab = Type.Object({
  tabId: Type.Integer(),
  url: Type.String({ maxLength: 2048 }),
  title: Type.String({ maxLength: 512 }),
  frames: Type.Array(SiteFrame, { maxItems: SITE_TOOL_LIMITS.framesPerTab }),
})
export type SiteTab = Static<typeof SiteTab>

/** `sites.report`: every open tab's declared tools of turned-on sites, in full, after any change. */
export const SitesReport = Type.Object({
  tabs: Type.Array(SiteTab, { maxItems: SITE_TOOL_LIMITS.tabsPerReport }),
})
export type SitesReport = Static<typeof SitesReport>

/** One site tool as the daemon sees it: its MCP name, permission, and why it is unavailable, if it is. */
export const SiteToolState = Type.Object({
  /** The name the page declared (neutralized for display). */
  name: Type.String(),
  /** The name agents call it by. */
  fullName: Type.String(),
  title: Type.String(),
  description: Type.String(),
  annotations: SiteToolAnnotations,
  /** Effective permission (skip flag, per tool, per site, off). */
  permission: Permission,
  /** The per-tool setting, when one is set and still applies. */
  toolPermission: Type.Optional(Permission),
  /** A per-tool setting exists but the declaration changed since it was set: the site default applies. */
  changed: Type.Optional(Type.Boolean()),
  /** Why agents cannot use it (an invalid schema, over the site's budget). */
  unavailable: Type.Optional(Type.String()),
  /** sha256 of the declaration (title, description, schema, annotations) a per-tool setting binds. */
  hash: Type.String(),
})
export type SiteToolState = Static<typeof SiteToolState>

/** One site: its default permission and its tools as currently declared in open tabs. */
export const SiteState = Type.Object({
  origin: Type.String(),
  /** The site's default (off unless the user turned it on). */
  permission: Permission,
  /** Whether bridge looks at this site's pages at all (any setting other than off). */
  enabled: Type.Boolean(),
  tools: Type.Array(SiteToolState),
  /** Tabs in which the site's tools are declared now. */
  tabIds: Type.Array(Type.Integer()),
})
export type SiteState = Static<typeof SiteState>

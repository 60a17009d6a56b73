/**
 * Messages between the service worker and siteContent.js, the script that reads a turned-on site's
 * WebMCP tools in each of its frames (ISOLATED world: the page cannot replace what it calls).
 */
import type { DeclaredSiteTool } from '../../src/protocol/siteTools'

/** siteContent.js -> worker: the frame's own tools now (sent at start and on every `toolchange`). */
export interface SiteToolsReport {
  siteTools: 'report'
  tools: DeclaredSiteTool[]
  /** The frame declared more tools (or longer names) than it may report. */
  truncated: boolean
  /** Counts up in each document: a report that arrives after a newer one is ignored. */
  seq: number
}

/** worker -> siteContent.js (to one frame). */
export type SiteToolsCommand =
  /** Runs `name` only while its declaration still hashes to `declared` (what the call was checked with). */
  | { siteTools: 'run'; name: string; input: Record<string, unknown>; declared: string }
  /** The site was turned off: stop listening and report nothing more. */
  | { siteTools: 'stop' }

/** siteContent.js -> worker: the answer to `run`. */
export type SiteToolsRunReply =
  | { ok: true; text: string; truncated: boolean }
  /** `changed`: the tool's declaration is not the one the call was checked with; it did not run. */
  | { ok: false; message: string; gone?: boolean; changed?: boolean }

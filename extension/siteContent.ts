/**
 * Content script for sites the user turned on (registered by the service worker for those origins
 * only, every frame, ISOLATED world, document_start): reads the tools this frame's document declared
 * with `document.modelContext.registerTool` and reports them to the service worker, at start and on
 * every `toolchange`; runs one when the worker asks. It runs in the isolated world, so a page that
 * replaces `getTools` or `executeTool` on its own side changes nothing here. It reports only the
 * frame's own tools (those whose `window` is this frame's), so a tool one frame exposes to another
 * (`exposedTo`) counts once, for the origin that declared it. Everything copied out is capped here.
 */
import {
  declarationText,
  SITE_TOOL_LIMITS,
  type DeclaredSiteTool,
  type SiteToolAnnotations,
} from '../src/protocol/siteTools'
import type { SiteToolsCommand, SiteToolsReport, SiteToolsRunReply } from './shared/siteToolTypes'

interface RegisteredTool {
  name?: unknown
  title?: unknown
  description?: unknown
  inputSchema?: unknown
  annotations?: unknown
  window?: unknown
}
interface ModelContext extends EventTarget {
  getTools(): Promise<RegisteredTool[]>
  executeTool(tool: RegisteredTool, input: Record<string, unknown>): Promise<unknown>
}

const FLAG = '__bridgeSiteToolsInstalled'
/** Set by the running copy: a second injection (worker restarted, site turned on again) resumes it. */
const RESUME = '__bridgeSiteToolsResume'
const scope = globalThis as Record<string, unknown>
const REPORT_DELAY_MS = 50
/** A frame waits this many times its last read of the tools before reading them again. */
const REPORT_SPACING = 4
/** The longest pause after one read. */
const MAX_SPACING_MS = 30_000
/** The Web Lock the frames of an origin take turns reading under. */
const READ_LOCK = 'bridge-site-tools-read'

const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.slice(0, max) : '')

function schemaText(value: unknown): { inputSchema?: string; schemaTooLong?: boolean } {
  if (value === undefined || value === null) return {}
  let raw: string
  try {
    raw = typeof value === 'string' ? value : JSON.stringify(value)
  } catch {
    return { inputSchema: '!', schemaTooLong: false }
  }
  if (raw.length > SITE_TOOL_LIMITS.schemaChars) return { inputSchema: '', schemaTooLong: true }
  return { inputSchema: raw }
}

function annotationsOf(value: unknown): SiteToolAnnotations {
  const out: SiteToolAnnotations = {}
  if (typeof value !== 'object' || value === null) return out
  const a = value as Record<string, unknown>
  for (const key of ['readOnlyHint', 'untrustedContentHint', 'destructiveHint', 'consequentialHint'] as const)
    if (typeof a[key] === 'boolean') out[key] = a[key]
  return out
}

/** The tool as reported (and as the daemon hashes it): every text capped as here. */
function declare(name: string, tool: RegisteredTool): DeclaredSiteTool {
  const description = text(tool.description, SITE_TOOL_LIMITS.descriptionChars + 1)
  return {
    name,
    title: text(tool.title, SITE_TOOL_LIMITS.titleChars),
    description:
      description.length > SITE_TOOL_LIMITS.descriptionChars
        ? `${description.slice(0, SITE_TOOL_LIMITS.descriptionChars)}…`
        : description,
    ...schemaText(tool.inputSchema),
    annotations: annotationsOf(tool.annotations),
  }
}

/** SHA-256 (hex) of a declaration's text (`declarationText`), as the daemon computes it. */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

if (scope[FLAG] === true) {
  const resume = scope[RESUME]
  if (typeof resume === 'function') (resume as () => void)()
} else {
  scope[FLAG] = true
  const context = (document as unknown as { modelContext?: ModelContext }).modelContext
  let stopped = false
  let seq = 0

  const ownTools = async (): Promise<RegisteredTool[]> => {
    if (!context) return []
    const all = await context.getTools()
    return all.filter((tool) => tool.window === window)
  }

  const send = (message: SiteToolsReport): void => {
    try {
      chrome.runtime.sendMessage(message).catch(() => undefined)
    } catch {
      stopped = true // the extension was reloaded: this copy has no one to talk to
    }
  }

  /** What this frame last sent (as text): the same list again is not sent (`force` aside). */
  let lastSent: string | undefined
  const report = async (force: boolean): Promise<void> => {
    if (stopped) return
    let truncated = false
    let chars = 0
    const tools: DeclaredSiteTool[] = []
    for (const tool of await ownTools().catch(() => [])) {
      const name = typeof tool.name === 'string' ? tool.name : ''
      if (
        !name ||
        name.length > SITE_TOOL_LIMITS.nameChars ||
        tools.length >= SITE_TOOL_LIMITS.toolsPerFrame
      ) {
        truncated = true
        continue
      }
      const declared = declare(name, tool)
      chars += declared.description.length + (declared.inputSchema?.length ?? 0)
      if (chars > SITE_TOOL_LIMITS.charsPerFrame) {
        truncated = true
        break
      }
      tools.push(declared)
    }
    const sent = JSON.stringify([tools, truncated])
    if (!force && sent === lastSent) return
    lastSent = sent
    send({ siteTools: 'report', tools, truncated, seq: ++seq })
  }

  // `getTools()` lists the tools of every frame of the page, and every frame hears every change: a page
  // of many frames declaring much would have each frame read all of it after each change, and keep the
  // renderer (and the worker, and the daemon) busy for minutes. So reading is paced: the frames of an
  // origin read one at a time (a Web Lock of the origin, where the page is a secure context), and after
  // a read that took d, the reader holds the turn (or, without locks, the frame waits) REPORT_SPACING
  // times d: reading takes at most a fifth of the renderer, whatever the page declares. A page that
  // holds the lock itself only keeps its own tools from being listed; a tool's declaration is checked
  // again when it runs, without the lock. A frame sends nothing when its own list did not change.
  let timer: ReturnType<typeof setTimeout> | undefined
  let readyAt = 0
  let force = false
  // Reports leave in order: a slow getTools() must not let an older list arrive after a newer one.
  let queue: Promise<void> = Promise.resolve()
  const readOnce = async (): Promise<number> => {
    const started = performance.now()
    const again = force
    force = false
    await report(again)
    return performance.now() - started
  }
  const timed = async (): Promise<void> => {
    const locks = (navigator as { locks?: LockManager }).locks
    let read = false
    // A frame without locks (not a secure context), or refused one (an opaque or partitioned origin),
    // reads alone and waits by itself.
    if (locks)
      try {
        await locks.request(READ_LOCK, async () => {
          read = true
          const took = await readOnce()
          await new Promise((resolve) => setTimeout(resolve, Math.min(took * REPORT_SPACING, MAX_SPACING_MS)))
        })
      } catch {
        // refused before reading: read below
      }
    if (read) return
    const took = await readOnce()
    readyAt = performance.now() + Math.min(took * REPORT_SPACING, MAX_SPACING_MS)
  }
  const soon = (): void => {
    clearTimeout(timer)
    timer = setTimeout(
      () => {
        queue = queue.then(timed).catch(() => undefined)
      },
      Math.max(REPORT_DELAY_MS, readyAt - performance.now()),
    )
  }
  /** The worker lost or dropped what this frame sent: the next report goes whatever it holds. */
  const resend = (): void => {
    force = true
    soon()
  }
  context?.addEventListener('toolchange', soon)
  // The worker lost what this frame reported (it restarted) or stopped it (the site was off): again.
  scope[RESUME] = () => {
    if (stopped) context?.addEventListener('toolchange', soon)
    stopped = false
    resend()
  }
  // A document restored from the back/forward cache reports again (the worker dropped it on leaving).
  window.addEventListener('pageshow', (event) => event.persisted && resend())
  resend()

  const run = async (
    name: string,
    input: Record<string, unknown>,
    declared: string,
  ): Promise<SiteToolsRunReply> => {
    const gone: SiteToolsRunReply = {
      ok: false,
      message: `this page no longer declares the tool ${name}`,
      gone: true,
    }
    const first = (await ownTools()).find((t) => t.name === name)
    if (!first || !context) return gone
    // The declaration the call was checked (and approved) with, or nothing runs: a page that re-declared
    // the tool since (a destructive one under a harmless one's name) gets `declaration_changed`.
    const seen = declarationText(declare(name, first))
    if ((await sha256Hex(seen)) !== declared)
      return { ok: false, message: 'the declaration changed', changed: true }
    // Hashing waited: the page may have re-declared meanwhile. Looked up again, compared as text, and run
    // in the same turn.
    const tool = (await ownTools()).find((t) => t.name === name)
    if (!tool) return gone
    if (declarationText(declare(name, tool)) !== seen)
      return { ok: false, message: 'the declaration changed', changed: true }
    try {
      const result = await context.executeTool(tool, input)
      const raw = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null')
      const truncated = raw.length > SITE_TOOL_LIMITS.resultChars
      return { ok: true, text: truncated ? raw.slice(0, SITE_TOOL_LIMITS.resultChars) : raw, truncated }
    } catch (err) {
      const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
      return { ok: false, message: message.slice(0, 2000) }
    }
  }

  chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse: (r: unknown) => void) => {
    if (sender.id !== chrome.runtime.id || sender.tab !== undefined) return false
    const command = message as SiteToolsCommand | null
    if (!command || typeof command !== 'object' || !('siteTools' in command)) return false
    if (command.siteTools === 'stop') {
      stopped = true
      context?.removeEventListener('toolchange', soon)
      return false
    }
    if (command.siteTools !== 'run' || stopped) return false
    void run(command.name, command.input, String(command.declared)).then(sendResponse, (err: unknown) =>
      sendResponse({ ok: false, message: String(err).slice(0, 2000) } satisfies SiteToolsRunReply),
    )
    return true
  })
}

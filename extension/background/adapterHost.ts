/**
 * Reaches plugin adapters inside tabs through the content script's private channels
 * (extension/content.ts): asks which channels a document has, probes `isReady()` with the 5 s limit,
 * and runs `invoke`. Nothing here reads a page global or runs code in the page's MAIN world.
 */
import { READY_PROBE_TIMEOUT_MS } from '../../src/protocol/constants'
import type { AdapterResult } from '../../src/protocol/adapter'
import type { ChannelStatus, ContentReply, ContentRequest } from '../shared/channelTypes'

/** Thrown when the tab is gone (closed, or navigated away mid-call). */
export class TabGoneError extends Error {}

/** Thrown when the tab's document is of another origin than the one the call was approved for. */
export class WrongOriginError extends Error {
  constructor(readonly shown: string) {
    super(`the tab now shows ${shown}`)
  }
}

function isTabGone(err: unknown): boolean {
  const m = err instanceof Error ? err.message : String(err)
  return /No tab with id|tab was closed|Receiving end does not exist|message port closed|back\/forward cache|Tab was discarded/i.test(
    m,
  )
}

/** Bookkeeping questions (status) never take this long unless the page hangs. */
const STATUS_TIMEOUT_MS = 8_000

const withTimeout = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> =>
  Promise.race([p, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms))])

async function ask(tabId: number, request: ContentRequest): Promise<ContentReply | undefined> {
  try {
    return await chrome.tabs.sendMessage<{ channel: ContentRequest }, ContentReply | undefined>(
      tabId,
      { channel: request },
      { frameId: 0 },
    )
  } catch (err) {
    if (isTabGone(err)) throw new TabGoneError(err instanceof Error ? err.message : String(err))
    throw err
  }
}

/**
 * The adapters that opened a channel in the tab's current document and when it started. Null when
 * the document has no live content script (it was open before the extension started or reloaded).
 */
export async function channelStatus(tabId: number): Promise<ChannelStatus | null> {
  let reply: ContentReply | undefined
  try {
    reply = await withTimeout(ask(tabId, { op: 'status' }), STATUS_TIMEOUT_MS, undefined)
  } catch (err) {
    if (err instanceof TabGoneError && /Receiving end does not exist/i.test(err.message)) return null
    throw err
  }
  return reply && 'timeOrigin' in reply ? reply : null
}

/** Runs the adapter's `isReady()` with the 5 s limit. Null when the plugin has no channel in the page. */
export async function probeReady(tabId: number, plugin: string): Promise<boolean | null> {
  const reply = await withTimeout(
    ask(tabId, { op: 'ready', plugin }).catch(() => undefined),
    READY_PROBE_TIMEOUT_MS,
    { ready: false },
  )
  if (!reply || 'missing' in reply) return null
  return 'ready' in reply && reply.ready
}

/** Runs one tool through the page's adapter channel. */
export async function invokeAdapter(
  tabId: number,
  plugin: string,
  tool: string,
  input: unknown,
  dispatchId: string,
  origin?: string,
): Promise<AdapterResult> {
  // The daemon owns the call's timeout (30 s, extended by progress, 5 min at most).
  const reply = await ask(tabId, {
    op: 'invoke',
    plugin,
    tool,
    input: input ?? null,
    dispatchId,
    ...(origin === undefined ? {} : { origin }),
  })
  if (!reply) throw new TabGoneError('the tab returned no result')
  if ('wrongOrigin' in reply) throw new WrongOriginError(reply.wrongOrigin)
  if ('missing' in reply)
    return {
      ok: false,
      error: { code: 'tab_unavailable', message: 'the plugin adapter is not loaded in this tab' },
    }
  if ('error' in reply) return { ok: false, error: { code: 'tool_error', message: reply.error } }
  if (!('result' in reply) || !isResult(reply.result)) throw new TabGoneError('the tab returned no result')
  return reply.result
}

function isResult(value: unknown): value is AdapterResult {
  if (typeof value !== 'object' || value === null) return false
  const r = value as { ok?: unknown; error?: unknown }
  if (r.ok === true) return 'output' in r
  if (r.ok !== false || typeof r.error !== 'object' || r.error === null) return false
  const e = r.error as { code?: unknown; message?: unknown }
  return typeof e.code === 'string' && typeof e.message === 'string'
}

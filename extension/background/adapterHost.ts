/**
 * Runs plugin adapters inside tabs with chrome.scripting: injects `adapters/<file>` into the MAIN world
 * (from a file, so the page's CSP does not block it), probes `isReady()` with the 5 s limit, and runs
 * `invoke`. Also makes sure the ISOLATED-world relay (content.js) is present, since tabs that were
 * open before the extension (re)loaded never got the declared content script.
 */
import { ADAPTER_GLOBAL_PREFIX, READY_PROBE_TIMEOUT_MS } from '../../src/protocol/constants'
import type { AdapterResult } from '../../src/protocol/adapter'

/** Thrown when the tab is gone (closed, or navigated away mid-call). */
export class TabGoneError extends Error {}

const RELAY_FLAG = '__bridgeRelayInstalled'

function isTabGone(err: unknown): boolean {
  const m = err instanceof Error ? err.message : String(err)
  return /No tab with id|tab was closed|Frame with ID 0 (was removed|is showing error page)|document was unloaded|Tab was discarded/i.test(
    m,
  )
}

/** Page scripts for bookkeeping (presence checks, injection) never take this long unless the page hangs. */
const SCRIPT_TIMEOUT_MS = 8_000

async function run<T>(
  inject: () => Promise<chrome.scripting.InjectionResult<T>[]>,
  timeoutMs: number | null = SCRIPT_TIMEOUT_MS,
): Promise<T | undefined> {
  try {
    const call = inject()
    const [first] =
      timeoutMs === null
        ? await call
        : await Promise.race([
            call,
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error('the page did not answer in time')), timeoutMs),
            ),
          ])
    return first?.result
  } catch (err) {
    if (isTabGone(err)) throw new TabGoneError(err instanceof Error ? err.message : String(err))
    throw err
  }
}

const withTimeout = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> =>
  Promise.race([p, new Promise<T>((resolve) => setTimeout(() => resolve(fallback), ms))])

/** Whether the adapter global for `plugin` exists in the tab's page. */
export async function hasAdapter(tabId: number, plugin: string): Promise<boolean> {
  const present = await run(() =>
    chrome.scripting.executeScript({
      target: { tabId },
      world: 'MAIN',
      args: [ADAPTER_GLOBAL_PREFIX + plugin],
      func: (key: string) => typeof (globalThis as Record<string, unknown>)[key] === 'object',
    }),
  )
  return present === true
}

/** Injects the adapter file. Resolves true when the adapter global exists. */
export async function injectAdapter(tabId: number, plugin: string, adapterFile: string): Promise<boolean> {
  await run(() =>
    chrome.scripting.executeScript({ target: { tabId }, world: 'MAIN', files: [`adapters/${adapterFile}`] }),
  )
  return hasAdapter(tabId, plugin)
}

/**
 * Makes sure the tab's document has a live relay. After an extension reload the old content script
 * is orphaned (its `chrome.runtime` is gone) and open tabs get no new one on their own.
 */
export async function ensureRelay(tabId: number): Promise<void> {
  const present = await run(() =>
    chrome.scripting.executeScript({
      target: { tabId },
      world: 'ISOLATED',
      args: [RELAY_FLAG],
      func: (flag: string) =>
        (globalThis as Record<string, unknown>)[flag] === true && typeof chrome.runtime?.id === 'string',
    }),
  )
  if (present !== true)
    await run(() =>
      chrome.scripting.executeScript({ target: { tabId }, world: 'ISOLATED', files: ['content.js'] }),
    )
}

/**
 * Runs the adapter's `isReady()` with the 5 s limit. Returns null when the adapter is missing from the
 * page (the page navigated or was never injected).
 */
export async function probeReady(tabId: number, plugin: string): Promise<boolean | null> {
  const probe = run(
    () =>
      chrome.scripting.executeScript({
        target: { tabId },
        world: 'MAIN',
        args: [ADAPTER_GLOBAL_PREFIX + plugin, READY_PROBE_TIMEOUT_MS],
        func: async (key: string, timeoutMs: number) => {
          const adapter = (globalThis as Record<string, unknown>)[key] as
            { isReady?: () => Promise<boolean> } | undefined
          if (!adapter || typeof adapter.isReady !== 'function') return null
          try {
            const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs))
            return (await Promise.race([adapter.isReady(), timeout])) === true
          } catch {
            return false
          }
        },
      }),
    null,
  )
  // The page itself may be frozen or hung: the outer limit covers the whole round trip.
  const result = await withTimeout(probe, READY_PROBE_TIMEOUT_MS + 1_000, false)
  return result === undefined ? false : result
}

/** Runs one tool through the page's adapter. */
export async function invokeAdapter(
  tabId: number,
  plugin: string,
  tool: string,
  input: unknown,
  dispatchId: string,
): Promise<AdapterResult> {
  const result = await run(
    () =>
      chrome.scripting.executeScript({
        target: { tabId },
        world: 'MAIN',
        args: [ADAPTER_GLOBAL_PREFIX + plugin, tool, input ?? null, dispatchId],
        func: async (key: string, name: string, args: unknown, id: string): Promise<AdapterResult> => {
          const adapter = (globalThis as Record<string, unknown>)[key] as
            { invoke?: (t: string, i: unknown, d: string) => Promise<AdapterResult> } | undefined
          if (!adapter || typeof adapter.invoke !== 'function')
            return {
              ok: false,
              error: { code: 'tab_unavailable', message: 'the plugin adapter is not loaded in this tab' },
            }
          let result: AdapterResult
          try {
            const out = await adapter.invoke(name, args, id)
            // Results cross into the extension by structured clone; JSON keeps them plain data.
            result = JSON.parse(JSON.stringify(out ?? { ok: true, output: null })) as AdapterResult
          } catch (err) {
            result = {
              ok: false,
              error: { code: 'tool_error', message: err instanceof Error ? err.message : String(err) },
            }
          }
          // A marker after the tool's last progress event: the relay keeps the order, so once the
          // service worker sees it, every progress report of this call has arrived before the result.
          globalThis.postMessage(
            {
              source: 'bridge-adapter',
              kind: 'flush',
              plugin: key.slice(key.indexOf(':') + 1),
              dispatchId: id,
            },
            '*',
          )
          return result
        },
      }),
    // The daemon owns the call's timeout (30 s, extended by progress, 5 min at most).
    null,
  )
  if (!result) throw new TabGoneError('the tab returned no result')
  return result
}

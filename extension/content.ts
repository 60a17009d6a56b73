/**
 * Content script (ISOLATED world, every http/https page from document_start). Plugin adapters run in
 * the page's MAIN world and cannot reach the extension; they post progress and log events to their
 * own window with `source: 'bridge-adapter'`, and this relay forwards exactly those to the service
 * worker, which checks that the tab matches the plugin and, for progress, that it runs that call.
 */
import { ADAPTER_EVENT_SOURCE } from '../src/protocol/constants'

const RELAY_FLAG = '__bridgeRelayInstalled'
const scope = globalThis as Record<string, unknown>

// An orphaned relay from before an extension reload has lost `chrome.runtime`: install a live one.
if (scope[RELAY_FLAG] !== true || typeof chrome.runtime?.id !== 'string') {
  scope[RELAY_FLAG] = true
  window.addEventListener('message', (event: MessageEvent) => {
    if (event.source !== window) return
    const data: unknown = event.data
    if (
      typeof data !== 'object' ||
      data === null ||
      (data as { source?: unknown }).source !== ADAPTER_EVENT_SOURCE
    )
      return
    try {
      chrome.runtime.sendMessage({ adapterEvent: data }).catch(() => undefined)
    } catch {
      // The extension was reloaded: this copy of the relay is orphaned; the new one takes over.
      scope[RELAY_FLAG] = false
    }
  })
}

/**
 * Content script (ISOLATED world, every http/https page, document_start): the extension's end of the
 * adapters' private channels (src/protocol/adapter.ts).
 *
 * Chrome runs this manifest script before the MAIN-world adapter scripts the service worker registers,
 * and both before any page script, so this listener is the first on the window: it takes the first
 * hello per plugin with its port and stops the event, so no page listener ever sees an adapter's port.
 * Any later hello for the same plugin (a page trying the handshake) is refused and reported. Whether a
 * channel is trusted is the service worker's decision (it knows when each adapter was registered and
 * compares with this document's start, `performance.timeOrigin`); this script only carries messages
 * and tags everything from a port with that port's plugin.
 */
import { CHANNEL_HELLO, type AdapterResult, type ChannelRequest } from '../src/protocol/adapter'
import type { ContentReply, ContentRequest } from './shared/channelTypes'

interface Channel {
  port: MessagePort
  version: string
  next: number
  pending: Map<number, (message: Record<string, unknown>) => void>
}

const FLAG = '__bridgeChannelsInstalled'
const scope = globalThis as Record<string, unknown>

// A copy injected twice into one document (never done on purpose) must not take the ports twice.
if (scope[FLAG] !== true) {
  scope[FLAG] = true
  const channels = new Map<string, Channel>()
  let refused = 0

  const toWorker = (message: unknown): void => {
    try {
      chrome.runtime.sendMessage(message).catch(() => undefined)
    } catch {
      // The extension was reloaded: this document's channels died with it.
    }
  }

  window.addEventListener(
    'message',
    (event: MessageEvent) => {
      if (event.source !== window) return
      const data: unknown = event.data
      if (typeof data !== 'object' || data === null || (data as { kind?: unknown }).kind !== CHANNEL_HELLO)
        return
      // Hellos are never for the page, first or not.
      event.stopImmediatePropagation()
      const hello = data as { plugin?: unknown; version?: unknown }
      const port = event.ports[0]
      if (typeof hello.plugin !== 'string' || !port) return
      if (channels.has(hello.plugin)) {
        refused++
        port.close()
        toWorker({ channelRefused: { plugin: hello.plugin } })
        return
      }
      const channel: Channel = {
        port,
        version: typeof hello.version === 'string' ? hello.version : '',
        next: 1,
        pending: new Map(),
      }
      channels.set(hello.plugin, channel)
      port.onmessage = (e: MessageEvent) => onPortMessage(hello.plugin as string, channel, e.data)
    },
    true,
  )

  const onPortMessage = (plugin: string, channel: Channel, data: unknown): void => {
    if (typeof data !== 'string' || data.length > 16 * 1024 * 1024) return
    let message: Record<string, unknown>
    try {
      message = JSON.parse(data) as Record<string, unknown>
    } catch {
      return
    }
    if (typeof message !== 'object' || message === null) return
    if (typeof message.id === 'number') {
      const resolve = channel.pending.get(message.id)
      channel.pending.delete(message.id)
      resolve?.(message)
      return
    }
    if (message.kind === 'log' || message.kind === 'progress')
      toWorker({ adapterEvent: { ...message, plugin } })
  }

  const ask = (channel: Channel, request: ChannelRequest): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      channel.pending.set(request.id, resolve)
      channel.port.postMessage(JSON.stringify(request))
    })

  const answer = async (request: ContentRequest): Promise<ContentReply> => {
    if (request.op === 'status')
      return {
        timeOrigin: performance.timeOrigin,
        channels: [...channels.entries()].map(([plugin, c]) => ({ plugin, version: c.version })),
        refused,
      }
    const channel = channels.get(request.plugin)
    if (!channel) return { missing: true }
    if (request.op === 'ready') {
      const reply = await ask(channel, { id: channel.next++, op: 'ready' })
      return { ready: reply.ready === true }
    }
    // Checked in the document itself, right before it runs: the tab may have navigated since approval.
    if (request.origin !== undefined && location.origin !== request.origin)
      return { wrongOrigin: location.origin }
    const reply = await ask(channel, {
      id: channel.next++,
      op: 'invoke',
      tool: request.tool,
      input: request.input,
      dispatchId: request.dispatchId,
    })
    // Every progress event of the call came before its reply on the port; the marker tells the
    // worker they have all been relayed.
    toWorker({ adapterEvent: { kind: 'flush', plugin: request.plugin, dispatchId: request.dispatchId } })
    return { result: reply.result as AdapterResult | undefined }
  }

  chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse: (r: unknown) => void) => {
    if (sender.id !== chrome.runtime.id || sender.tab !== undefined) return false
    const request = (message as { channel?: ContentRequest } | null)?.channel
    if (!request) return false
    void answer(request).then(sendResponse, (err: unknown) =>
      sendResponse({ error: err instanceof Error ? err.message : String(err) }),
    )
    return true
  })
}

/**
 * The requests an action started, told apart from the page's own traffic, from the tab's Network
 * events while the action runs (see settleWait.ts for the rules). Pure: events in, labels out.
 */
/** Requests that never finish by design; they must not hold the wait. */
const LONG_LIVED = new Set(['EventSource', 'WebSocket', 'Ping'])
/** Responses that stream for as long as the page listens. */
const STREAMED = /^(text\/event-stream|application\/(x-)?ndjson|application\/stream\+json|multipart\/)/i
/** A response body still open this long after its headers is a stream, not a download to wait for. */
const BODY_AFTER_HEADERS_MS = 1_000
/**
 * A finished request holds the wait this much longer: the page handles its answer (parses it, changes
 * the DOM) after the network is done, and on a loaded machine that can start after a DOM quiet period.
 */
export const ANSWER_HANDLING_MS = 150

interface Request {
  label: string
  channel: string
  headersAt?: number
  doneAt?: number
}

/** `GET /api/x` (path only: queries can carry tokens), and the channel key (origin and path). */
function describeUrl(method: string, url: string): { label: string; channel: string } {
  try {
    const u = new URL(url)
    const path = u.pathname.length > 80 ? `${u.pathname.slice(0, 79)}…` : u.pathname
    return { label: `${method} ${path}`, channel: u.origin + u.pathname }
  } catch {
    return { label: `${method} (a request)`, channel: url.slice(0, 200) }
  }
}

/** The requests an action started, from the tab's Network events while the action runs. */
export class RequestWatch {
  private readonly own = new Map<string, Request>()
  /** Requests seen answering without having been seen starting: the page's own, opened before. */
  private readonly channels = new Set<string>()

  constructor(private readonly now: () => number = () => Date.now()) {}

  onEvent(method: string, params: Record<string, unknown>): void {
    const id = String(params.requestId)
    if (method === 'Network.requestWillBeSent') {
      if (this.own.has(id) || LONG_LIVED.has(String(params.type))) return // a redirect keeps its entry
      const request = params.request as { method?: string; url?: string } | undefined
      const { label, channel } = describeUrl(request?.method ?? 'GET', request?.url ?? '')
      // The browser's own fetch of the site's icon after a page loads: no page waits for it.
      if (params.type === 'Other' && label === 'GET /favicon.ico') return
      // The page's channel opened again: not the action's.
      if (this.channels.has(channel)) return
      this.own.set(id, { label, channel })
    } else if (method === 'Network.responseReceived') {
      const response = params.response as { url?: string; mimeType?: string } | undefined
      const known = this.own.get(id)
      if (!known) {
        this.channels.add(describeUrl('GET', response?.url ?? '').channel)
        return
      }
      if (STREAMED.test(response?.mimeType ?? '')) this.own.delete(id)
      else known.headersAt = this.now()
    } else if (method === 'Network.loadingFinished' || method === 'Network.loadingFailed') {
      const known = this.own.get(id)
      if (known) known.doneAt = this.now()
    }
  }

  /**
   * The action's requests that still hold the wait: running ones (a body streaming past its grace does
   * not), and ones that finished less than ANSWER_HANDLING_MS ago.
   */
  holding(): string[] {
    const now = this.now()
    const out: string[] = []
    for (const [id, request] of this.own) {
      if (request.doneAt !== undefined) {
        if (now - request.doneAt < ANSWER_HANDLING_MS) out.push(request.label)
        else this.own.delete(id)
      } else if (request.headersAt === undefined || now - request.headersAt < BODY_AFTER_HEADERS_MS)
        out.push(request.label)
    }
    return out
  }

  /** After a navigation: the old document's requests are gone with it. */
  clear(): void {
    this.own.clear()
  }
}

/**
 * Network recording per tab through the DevTools Network domain. Only metadata is kept (never
 * bodies), at most MAX_REQUESTS per tab, and every value not known to be harmless (header values,
 * cookies, query values, path parameters, see ./credentialRedaction) is redacted on the way in, so
 * it never sits in the extension's memory, unless the recording was started with credentials allowed
 * (a person approved that call). Each request names what was withheld from it.
 */
import { redactHeaders, redactUrl, type Withheld } from './credentialRedaction'
import { holdDebugger, onSessionDetached, releaseDebugger, type Cdp } from './debuggerSession'

const HOLD = 'network'
export const MAX_REQUESTS = 1_000

export interface RecordedRequest {
  id: string
  method: string
  url: string
  type: string
  startedAt: number
  /** Monotonic protocol seconds, for durations. */
  startTime: number
  endTime?: number
  status?: number
  statusText?: string
  mimeType?: string
  httpVersion?: string
  requestHeaders: Record<string, string>
  responseHeaders?: Record<string, string>
  encodedDataLength?: number
  failed: boolean
  errorText?: string
  /** What was redacted from this request (`request header apikey`, `query token`), each once. */
  withheld: Withheld
}

interface Capture {
  capturing: boolean
  requests: Map<string, RecordedRequest>
  pageUrl: string
  startedAt: number
  /** Credentials are recorded as they are (only after an approved call asked for them). */
  keepCredentials: boolean
  off?: () => void
}

const captures = new Map<number, Capture>()

function record(capture: Capture, method: string, p: Record<string, unknown>): void {
  const id = p.requestId as string
  const keep = capture.keepCredentials
  if (method === 'Network.requestWillBeSent') {
    const request = p.request as { url: string; method: string; headers: Record<string, unknown> }
    const redirect = p.redirectResponse as
      { status: number; statusText: string; headers: Record<string, unknown>; mimeType: string } | undefined
    const previous = capture.requests.get(id)
    if (previous && redirect) {
      // A redirect reuses the request id: keep the hop as its own entry.
      capture.requests.delete(id)
      const hopId = `${id}:${previous.startTime}`
      Object.assign(previous, {
        id: hopId,
        status: redirect.status,
        statusText: redirect.statusText,
        responseHeaders: redactHeaders(redirect.headers, keep, previous.withheld, 'response'),
        mimeType: redirect.mimeType,
        endTime: p.timestamp as number,
      })
      capture.requests.set(hopId, previous)
    }
    const withheld: Withheld = new Set()
    capture.requests.set(id, {
      id,
      method: request.method,
      url: keep ? request.url : redactUrl(request.url, withheld),
      type: (p.type as string | undefined) ?? 'Other',
      startedAt: Math.round(((p.wallTime as number | undefined) ?? Date.now() / 1000) * 1000),
      startTime: p.timestamp as number,
      requestHeaders: redactHeaders(request.headers, keep, withheld, 'request'),
      failed: false,
      withheld,
    })
    while (capture.requests.size > MAX_REQUESTS)
      capture.requests.delete(capture.requests.keys().next().value!)
    return
  }
  const entry = capture.requests.get(id)
  if (!entry) return
  if (method === 'Network.responseReceived') {
    const r = p.response as {
      status: number
      statusText: string
      headers: Record<string, unknown>
      mimeType: string
      protocol?: string
    }
    Object.assign(entry, {
      status: r.status,
      statusText: r.statusText,
      responseHeaders: redactHeaders(r.headers, keep, entry.withheld, 'response'),
      mimeType: r.mimeType,
      httpVersion: r.protocol,
    })
  } else if (method === 'Network.loadingFinished') {
    Object.assign(entry, { endTime: p.timestamp as number, encodedDataLength: p.encodedDataLength as number })
  } else if (method === 'Network.loadingFailed') {
    Object.assign(entry, { endTime: p.timestamp as number, failed: true, errorText: p.errorText as string })
  }
}

export async function startCapture(
  tabId: number,
  url: string | undefined,
  keepCredentials = false,
): Promise<void> {
  stopCapture(tabId)
  const cdp: Cdp = await holdDebugger(tabId, url, HOLD)
  const capture: Capture = {
    capturing: true,
    requests: new Map(),
    pageUrl: keepCredentials ? (url ?? '') : redactUrl(url ?? ''),
    startedAt: Date.now(),
    keepCredentials,
  }
  capture.off = cdp.on((method, params) => {
    if (method.startsWith('Network.')) record(capture, method, params)
  })
  captures.set(tabId, capture)
  try {
    // Chrome keeps recent bodies in its own buffer (read by browser_network_request); we keep none.
    await cdp.send('Network.enable', { maxTotalBufferSize: 20_000_000, maxResourceBufferSize: 5_000_000 })
  } catch (err) {
    stopCapture(tabId)
    throw err
  }
}

/** Stops recording; what was recorded stays readable until the next start or the tab closes. */
export function stopCapture(tabId: number): number {
  const capture = captures.get(tabId)
  if (!capture) return 0
  if (capture.capturing) {
    capture.capturing = false
    capture.off?.()
    releaseDebugger(tabId, HOLD)
  }
  return capture.requests.size
}

export function captureOf(tabId: number): Capture | undefined {
  return captures.get(tabId)
}

export function captureSummaries(): { tabId: number; capturing: boolean; requests: number }[] {
  return [...captures].map(([tabId, c]) => ({ tabId, capturing: c.capturing, requests: c.requests.size }))
}

// The user dismissed the debugger bar: recording ends but stays readable.
onSessionDetached((tabId) => {
  const capture = captures.get(tabId)
  if (capture?.capturing) {
    capture.capturing = false
    capture.off?.()
  }
})
chrome.tabs.onRemoved.addListener((tabId) => {
  stopCapture(tabId)
  captures.delete(tabId)
})

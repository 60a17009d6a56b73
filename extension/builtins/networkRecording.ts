/** browser_network_start / _stop / _requests / _export_har. */
import { BRIDGE_VERSION } from '../../src/protocol/constants'
import type { devtools as defs, BrowserToolInput } from '../../src/tools'
import { notFound } from './errors'
import { credentialsAllowed } from './credentialRedaction'
import { hooks } from './extension'
import { captureOf, startCapture, stopCapture, type RecordedRequest } from './networkCapture'
import { recordWebSockets, stopWebSockets } from './network'
import { resolveTab, tabIdOf } from './tabLookup'
import { isRestrictedUrl, restricted } from './errors'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

function recorded(tabId: number, urlContains: string | undefined) {
  const capture = captureOf(tabId)
  if (!capture)
    throw notFound(
      `no network recording for tab ${tabId}: call browser_network_start first, then let the page load`,
    )
  const all = [...capture.requests.values()].sort((a, b) => a.startTime - b.startTime)
  const requests = urlContains === undefined ? all : all.filter((r) => r.url.includes(urlContains))
  return { capture, requests }
}

const durationMs = (r: RecordedRequest) =>
  r.endTime === undefined ? null : Math.max(0, Math.round((r.endTime - r.startTime) * 1000))

export async function networkStart(input: In<'networkStart'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  // Asked for, and the daemon's current permission for this tool is ask: a person approved this call.
  const keep =
    input.includeCredentials === true &&
    credentialsAllowed(true, await hooks.toolPermission?.('browser_network_start'))
  await startCapture(tabId, tab.url, keep)
  await recordWebSockets(tabId, tab.url)
  if (input.includeCredentials !== true) return { tabId, capturing: true as const }
  return {
    tabId,
    capturing: true as const,
    credentials: keep ? ('included' as const) : ('redacted' as const),
  }
}

export async function networkStop(input: In<'networkStop'>) {
  const tabId = tabIdOf(await resolveTab(input.tabId))
  if (!captureOf(tabId)) throw notFound(`no network recording for tab ${tabId}`)
  stopWebSockets(tabId)
  return { tabId, capturing: false as const, requests: stopCapture(tabId) }
}

export async function networkRequests(input: In<'networkRequests'>) {
  const tabId = tabIdOf(await resolveTab(input.tabId))
  const { capture, requests } = recorded(tabId, input.urlContains)
  const limit = input.limit ?? 100
  return {
    capturing: capture.capturing,
    total: requests.length,
    requests: requests.slice(-limit).map((r) => ({
      id: r.id,
      method: r.method,
      url: r.url,
      type: r.type,
      status: r.status ?? null,
      statusText: r.statusText ?? null,
      mimeType: r.mimeType ?? null,
      failed: r.failed,
      errorText: r.errorText ?? null,
      encodedDataLength: r.encodedDataLength ?? null,
      startedAt: r.startedAt,
      durationMs: durationMs(r),
      ...(input.includeHeaders
        ? { requestHeaders: r.requestHeaders, responseHeaders: r.responseHeaders ?? {} }
        : {}),
      ...withheldOf(r, input.includeHeaders === true),
    })),
    ...(capture.keepCredentials ? {} : { redaction: REDACTION_NOTE }),
  }
}

/** Said once per result: why some values read [redacted], and how a person can allow them. */
export const REDACTION_NOTE =
  'values not known to be harmless (credentials, cookies, most query and form values) are shown as [redacted] and named in withheld; a recording started with includeCredentials on a call a person approved (permission ask) keeps them'

/** The request's `withheld` names; header names only when the headers are shown. */
function withheldOf(r: RecordedRequest, headers: boolean): { withheld?: string[] } {
  const names = [...r.withheld].filter((name) => headers || !/^(request|response) header /.test(name))
  return names.length ? { withheld: names } : {}
}

const harHeaders = (headers: Record<string, string> | undefined) =>
  Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }))

function harQuery(url: string) {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
  } catch {
    return []
  }
}

export async function networkExportHar(input: In<'networkExportHar'>) {
  const tabId = tabIdOf(await resolveTab(input.tabId))
  const { capture, requests } = recorded(tabId, input.urlContains)
  const pageId = `page_${tabId}`
  const entries = requests.slice(-(input.maxEntries ?? 200)).map((r) => {
    const time = durationMs(r) ?? -1
    return {
      pageref: pageId,
      startedDateTime: new Date(r.startedAt).toISOString(),
      time,
      request: {
        method: r.method,
        url: r.url,
        httpVersion: r.httpVersion ?? 'HTTP/1.1',
        cookies: [],
        headers: harHeaders(r.requestHeaders),
        queryString: harQuery(r.url),
        headersSize: -1,
        bodySize: -1,
      },
      response: {
        status: r.status ?? 0,
        statusText: r.statusText ?? (r.failed ? (r.errorText ?? 'failed') : ''),
        httpVersion: r.httpVersion ?? 'HTTP/1.1',
        cookies: [],
        headers: harHeaders(r.responseHeaders),
        content: { size: -1, mimeType: r.mimeType ?? 'x-unknown' },
        redirectURL: r.responseHeaders?.location ?? r.responseHeaders?.Location ?? '',
        headersSize: -1,
        bodySize: r.encodedDataLength ?? -1,
        ...(r.failed ? { _error: r.errorText ?? 'failed' } : {}),
      },
      cache: {},
      timings: { send: 0, wait: Math.max(time, 0), receive: 0 },
      _resourceType: r.type,
      ...(r.withheld.size ? { comment: `withheld: ${[...r.withheld].join(', ')}` } : {}),
    }
  })
  return {
    log: {
      version: '1.2',
      ...(capture.keepCredentials ? {} : { comment: REDACTION_NOTE }),
      creator: { name: 'bridge', version: BRIDGE_VERSION },
      pages: [
        {
          id: pageId,
          startedDateTime: new Date(capture.startedAt).toISOString(),
          title: capture.pageUrl,
          pageTimings: {},
        },
      ],
      entries,
    },
  }
}

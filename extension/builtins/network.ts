/**
 * Handlers of src/tools/network.ts: one request in detail, WebSocket frames, network conditions, and
 * routes. Routes answer at once inside the extension (Fetch domain: fulfil or fail); a request is never
 * left paused waiting for the agent.
 */
import type { network as defs, BrowserToolInput } from '../../src/tools'
import type { Handlers } from './context'
import { holdDebugger, onSessionDetached, releaseDebugger, withDebugger, type Cdp } from './debuggerSession'
import { invalid, isRestrictedUrl, messageOf, notFound, restricted } from './errors'
import { redactFrame, redactRequestBody, redactResponseBody } from './bodyRedaction'
import { redactUrl, type Withheld } from './credentialRedaction'
import { captureOf } from './networkCapture'
import { resolveTab, tabIdOf } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const MAX_FRAMES = 1_000
const MAX_FRAME_CHARS = 2_000

interface Frame {
  socket: string
  direction: 'sent' | 'received'
  text: string
  at: number
}
interface SocketLog {
  sockets: Map<string, string>
  frames: Frame[]
  /** What was redacted from socket URLs and frames (unless the capture keeps credentials). */
  withheld: Withheld
  off: () => void
}
const socketLogs = new Map<number, SocketLog>()

/** Called when a network capture starts: WebSocket frames are recorded alongside the requests. */
export async function recordWebSockets(tabId: number, url: string | undefined): Promise<void> {
  socketLogs.get(tabId)?.off()
  const cdp = await holdDebugger(tabId, url, 'network')
  // Frames and URLs follow the recording's rule for credentials, redacted on the way in.
  const keep = captureOf(tabId)?.keepCredentials === true
  const log: SocketLog = { sockets: new Map(), frames: [], withheld: new Set(), off: () => undefined }
  log.off = cdp.on((method, p) => {
    if (method === 'Network.webSocketCreated')
      log.sockets.set(String(p.requestId), keep ? String(p.url) : redactUrl(String(p.url), log.withheld))
    else if (method === 'Network.webSocketFrameSent' || method === 'Network.webSocketFrameReceived') {
      const response = p.response as { opcode: number; payloadData: string }
      const text =
        response.opcode === 1
          ? keep
            ? response.payloadData
            : redactFrame(response.payloadData, log.withheld)
          : `(binary, ${Math.floor((response.payloadData.length * 3) / 4)} bytes)`
      log.frames.push({
        socket: String(p.requestId),
        direction: method === 'Network.webSocketFrameSent' ? 'sent' : 'received',
        text: text.length > MAX_FRAME_CHARS ? `${text.slice(0, MAX_FRAME_CHARS)}… [truncated]` : text,
        at: Math.round(Number(p.timestamp) * 1000),
      })
      if (log.frames.length > MAX_FRAMES) log.frames.shift()
    }
  })
  socketLogs.set(tabId, log)
}

export function stopWebSockets(tabId: number): void {
  socketLogs.get(tabId)?.off()
}

/** A header's value by name in any case (recorded headers keep the page's spelling). */
const headerValue = (headers: Record<string, string>, name: string): string | undefined =>
  Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1]

async function networkRequest(input: In<'networkRequest'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  const capture = captureOf(tabId)
  const request = capture?.requests.get(input.id)
  if (!request)
    throw notFound(`no recorded request ${input.id} in tab ${tabId}: ids come from browser_network_requests`)
  let text: string
  const withheld: Withheld = new Set()
  // Headers were recorded already redacted (or kept, when a person approved includeCredentials).
  if (input.part === 'requestHeaders' || input.part === 'responseHeaders') {
    const side = input.part === 'requestHeaders' ? 'request' : 'response'
    text = JSON.stringify(
      (side === 'request' ? request.requestHeaders : request.responseHeaders) ?? {},
      null,
      1,
    )
    for (const name of request.withheld)
      if (name.startsWith(`${side} header `) || name.startsWith('cookie ')) withheld.add(name)
  } else {
    text = await withDebugger(tabId, tab.url, async (cdp) => {
      try {
        if (input.part === 'requestBody')
          return (await cdp.send<{ postData: string }>('Network.getRequestPostData', { requestId: input.id }))
            .postData
        const body = await cdp.send<{ body: string; base64Encoded: boolean }>('Network.getResponseBody', {
          requestId: input.id,
        })
        return body.base64Encoded ? `(binary, ${Math.floor((body.body.length * 3) / 4)} bytes)` : body.body
      } catch (err) {
        throw notFound(
          `the ${input.part === 'requestBody' ? 'request has no body' : 'response body is not available'} (${messageOf(err)}); bodies are kept only while the capture runs and the page stays`,
        )
      }
    })
    // Bodies follow the recording's rule for credentials (see browser_network_start).
    if (!capture?.keepCredentials)
      text =
        input.part === 'requestBody'
          ? redactRequestBody(text, headerValue(request.requestHeaders, 'content-type'), withheld)
          : redactResponseBody(text, withheld)
  }
  const offset = input.offset ?? 0
  const maxLength = input.maxLength ?? 20_000
  const part = text.slice(offset, offset + maxLength)
  const rest = text.length - offset - part.length
  return {
    id: request.id,
    url: request.url,
    part: input.part,
    text:
      rest > 0
        ? `${part}\n[truncated: ${rest} more characters; read on with offset ${offset + part.length}]`
        : part,
    length: text.length,
    truncated: rest > 0,
    ...(withheld.size ? { withheld: [...withheld] } : {}),
  }
}

async function websocketFrames(input: In<'websocketFrames'>) {
  const tabId = tabIdOf(await resolveTab(input.tabId))
  const log = socketLogs.get(tabId)
  if (!log) throw notFound(`no network recording for tab ${tabId}: call browser_network_start first`)
  const sockets = [...log.sockets]
    .filter(([, url]) => input.urlContains === undefined || url.includes(input.urlContains))
    .map(([id, url]) => ({ id, url }))
  const ids = new Set(sockets.map((s) => s.id))
  const frames = log.frames.filter((f) => ids.has(f.socket))
  return {
    sockets,
    frames: frames.slice(-(input.limit ?? 50)),
    total: frames.length,
    ...(log.withheld.size ? { withheld: [...log.withheld] } : {}),
  }
}

async function networkConditions(input: In<'networkConditions'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  const normal =
    !input.offline && !input.latencyMs && input.downloadKbps === undefined && input.uploadKbps === undefined
  const cdp = await holdDebugger(tabId, tab.url, 'conditions')
  const kbps = (v: number | undefined) => (v === undefined ? -1 : (v * 1000) / 8)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', {
    offline: input.offline ?? false,
    latency: input.latencyMs ?? 0,
    downloadThroughput: kbps(input.downloadKbps),
    uploadThroughput: kbps(input.uploadKbps),
  })
  if (normal) releaseDebugger(tabId, 'conditions')
  return {
    offline: input.offline ?? false,
    latencyMs: input.latencyMs ?? 0,
    downloadKbps: input.downloadKbps ?? null,
    uploadKbps: input.uploadKbps ?? null,
  }
}

interface Route {
  id: string
  urlPattern: string
  matcher: RegExp
  action: 'block' | 'fulfill'
  status: number
  contentType: string
  body: string
  hits: number
}
const routes = new Map<number, { list: Route[]; off: () => void; cdp: Cdp }>()
let nextRouteId = 1

const globToRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  )

function base64Of(text: string): string {
  const bytes = new TextEncoder().encode(text)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

const routeView = (r: Route) => ({ id: r.id, urlPattern: r.urlPattern, action: r.action, hits: r.hits })

async function applyRoutes(tabId: number): Promise<void> {
  const entry = routes.get(tabId)
  if (!entry) return
  if (!entry.list.length) {
    entry.off()
    routes.delete(tabId)
    await entry.cdp.send('Fetch.disable').catch(() => undefined)
    releaseDebugger(tabId, 'routes')
    return
  }
  await entry.cdp.send('Fetch.enable', {
    patterns: entry.list.map((r) => ({ urlPattern: r.urlPattern, requestStage: 'Request' })),
  })
}

/** Every paused request is answered here, in the same turn: fulfilled, failed, or let through. */
function answer(tabId: number, cdp: Cdp, params: Record<string, unknown>): void {
  const request = params.request as { url: string }
  const route = routes.get(tabId)?.list.find((r) => r.matcher.test(request.url))
  const requestId = params.requestId
  const done = (method: string, extra: Record<string, unknown>) =>
    cdp.send(method, { requestId, ...extra }).catch(() => undefined)
  if (!route) void done('Fetch.continueRequest', {})
  else {
    route.hits++
    if (route.action === 'block') void done('Fetch.failRequest', { errorReason: 'BlockedByClient' })
    else
      void done('Fetch.fulfillRequest', {
        responseCode: route.status,
        responseHeaders: [{ name: 'content-type', value: route.contentType }],
        body: base64Of(route.body),
      })
  }
}

async function routeAdd(input: In<'routeAdd'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  if (input.action === 'block' && (input.body !== undefined || input.status !== undefined))
    throw invalid('status and body apply to action fulfill')
  let entry = routes.get(tabId)
  if (!entry) {
    const cdp = await holdDebugger(tabId, tab.url, 'routes')
    const off = cdp.on((method, params) => {
      if (method === 'Fetch.requestPaused') answer(tabId, cdp, params)
    })
    entry = { list: [], off, cdp }
    routes.set(tabId, entry)
  }
  const route: Route = {
    id: `r${nextRouteId++}`,
    urlPattern: input.urlPattern,
    matcher: globToRegExp(input.urlPattern),
    action: input.action,
    status: input.status ?? 200,
    contentType: input.contentType ?? 'text/plain',
    body: input.body ?? '',
    hits: 0,
  }
  entry.list.push(route)
  await applyRoutes(tabId)
  return { id: route.id, routes: entry.list.map(routeView) }
}

async function routeList(input: In<'routeList'>) {
  const tabId = tabIdOf(await resolveTab(input.tabId))
  return { routes: (routes.get(tabId)?.list ?? []).map(routeView) }
}

async function routeRemove(input: In<'routeRemove'>) {
  const tabId = tabIdOf(await resolveTab(input.tabId))
  const entry = routes.get(tabId)
  const before = entry?.list.length ?? 0
  if (entry) entry.list = input.id === undefined ? [] : entry.list.filter((r) => r.id !== input.id)
  const after = entry?.list.length ?? 0
  if (input.id !== undefined && before === after) throw notFound(`no route ${input.id} in tab ${tabId}`)
  const remaining = (entry?.list ?? []).map(routeView)
  await applyRoutes(tabId)
  return { removed: before - after, routes: remaining }
}

onSessionDetached((tabId) => {
  socketLogs.get(tabId)?.off()
  routes.get(tabId)?.off()
  routes.delete(tabId)
})
chrome.tabs.onRemoved.addListener((tabId) => {
  socketLogs.get(tabId)?.off()
  socketLogs.delete(tabId)
})

export const networkHandlers: Handlers<typeof defs> = {
  networkRequest,
  websocketFrames,
  networkConditions,
  routeAdd,
  routeList,
  routeRemove,
}

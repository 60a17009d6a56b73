// Network capture, with the tools on auto (nobody approves) and no includeCredentials, must hand the
// agent no credential. Attack: a site whose page sends every kind of credential a name list misses:
// headers named apikey, api-key, Private-Token, Ocp-Apim-Subscription-Key, X-CSRFToken and
// X-Authorization; query values under names no list knows; URLs inside Refresh and Link response
// headers; a ;jsessionid path parameter; a multipart password; a GraphQL mutation with the password
// inline; a WebSocket with a token in its URL and in the frames both ways. Every secret carries LEAK,
// and the agent reads everything the network tools offer, asking for credentials too. The real MCP
// client, the real daemon with the built-in tools on auto, the real extension in Chromium.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { startCatalogueHarness, type CatalogueHarness } from '../e2e/builtins/catalogueHarness'
import { textOf } from '../helpers/mcpClient'

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>leaky</title></head><body><p id="s">working</p>
<script>
// Built at run time, so the page's own source (a response body the agent may read) holds none.
const L = 'LE' + 'AK-';
(async () => {
  await fetch('/api/headers', { headers: {
    apikey: L + 'h-apikey', 'api-key': L + 'h-api-key', 'Private-Token': L + 'h-private-token',
    'Ocp-Apim-Subscription-Key': L + 'h-ocp', 'X-CSRFToken': L + 'h-csrftoken', 'X-Authorization': L + 'h-xauth',
    'X-Custom-Thing': L + 'h-custom', 'Content-Type': 'text/plain' } })
  await fetch('/api/search?q=cats&state=' + L + 'q-state&ck=' + L + 'q-ck&page=2')
  await fetch('/api/refresh')
  await fetch('/app;jsessionid=' + L + 'jsessionid/items?page=1')
  const form = new FormData()
  form.append('username', 'alice')
  form.append('password', L + 'multipart-password')
  form.append('pin', L + 'multipart-pin')
  await fetch('/login', { method: 'POST', body: form })
  await fetch('/login-form', { method: 'POST', body: new URLSearchParams({ user: 'alice', pass_phrase: L + 'form-passphrase', page: '1' }) })
  await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({
    operationName: 'Login',
    query: 'mutation Login { login(user: "alice", password: "' + L + 'graphql-password", pin: 987654) { ok } }',
    variables: { otpCode: L + 'graphql-variable' } }) })
  await new Promise((resolve) => {
    const ws = new WebSocket('ws://' + location.host + '/socket?access=' + L + 'ws-url&room=lobby')
    ws.onopen = () => { ws.send(JSON.stringify({ type: 'hello', auth: L + 'ws-sent-json' })); ws.send(L + 'ws-sent-text') }
    ws.onmessage = (e) => { if (String(e.data).includes('bye')) { ws.close(); resolve() } }
  })
  document.getElementById('s').textContent = 'all sent'
})()
</script></body></html>`

async function startLeakySite(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/'
    req.resume()
    if (path === '/leaky') {
      res.setHeader('content-type', 'text/html; charset=utf-8')
      res.setHeader('set-cookie', ['sid=LEAK-cookie-sid; Path=/; HttpOnly', 'theme=LEAK-cookie-theme'])
      return res.end(PAGE)
    }
    res.setHeader('content-type', 'application/json')
    res.setHeader('cache-control', 'no-store')
    if (path === '/api/refresh') {
      res.setHeader('refresh', '30; url=/next?token=LEAK-refresh-url')
      res.setHeader('link', '</preload?key=LEAK-link-url>; rel=preload; as=fetch')
      res.setHeader('x-session-hint', 'LEAK-response-custom-header')
    }
    res.end('{"ok":true}')
  })
  const wss = new WebSocketServer({ server })
  wss.on('connection', (socket) => {
    socket.on('message', (data: Buffer) => {
      if (data.toString('utf8').includes('hello')) {
        socket.send(JSON.stringify({ type: 'welcome', session: 'LEAK-ws-received-json' }))
        socket.send('bye LEAK-ws-received-text')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate()
        wss.close()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

describe('network capture hands no credential to an agent nobody approved', () => {
  let h: CatalogueHarness
  let site: Awaited<ReturnType<typeof startLeakySite>>
  beforeAll(async () => {
    site = await startLeakySite()
    h = await startCatalogueHarness()
  })
  afterAll(async () => {
    await h?.close()
    await site?.close()
  })

  it('withholds every value not known to be harmless, in every network tool, and says what it withheld', async () => {
    const tabId = await h.open('about:blank')
    // Asking for credentials is not enough: the tool is on auto, so nobody approved it.
    expect(await h.json('browser_network_start', { tabId, includeCredentials: true })).toEqual({
      tabId,
      capturing: true,
      credentials: 'redacted',
    })
    await h.text('browser_navigate', { tabId, url: `${site.url}/leaky` })
    await h.text('browser_wait_for', { tabId, text: 'all sent', timeoutMs: 15_000 })

    const seen: string[] = []
    const listText = await h.text('browser_network_requests', { tabId, includeHeaders: true })
    seen.push(listText)
    const list = JSON.parse(listText) as {
      redaction?: string
      requests: Array<{
        id: string
        url: string
        requestHeaders: Record<string, string>
        responseHeaders: Record<string, string>
        withheld?: string[]
      }>
    }
    seen.push(await h.text('browser_network_export_har', { tabId }))
    for (const request of list.requests)
      for (const part of ['requestHeaders', 'responseHeaders', 'requestBody', 'responseBody'])
        seen.push(textOf(await h.call('browser_network_request', { tabId, id: request.id, part })))
    const framesText = await h.text('browser_websocket_frames', { tabId })
    seen.push(framesText)
    const frames = JSON.parse(framesText) as { sockets: Array<{ url: string }>; frames: unknown[] }

    const leaks = seen.flatMap((text) => text.match(/LEAK-[a-z-]+/g) ?? [])
    expect([...new Set(leaks)]).toEqual([])

    // The capture is real: the requests, bodies and frames are there, harmless values as they were,
    // and the result says what it withheld.
    expect(list.redaction).toContain('includeCredentials')
    const headers = list.requests.find((r) => r.url.endsWith('/api/headers'))
    expect(headers?.requestHeaders['Content-Type']).toBe('text/plain')
    expect(headers?.requestHeaders.apikey).toBe('[redacted]')
    expect(headers?.withheld).toEqual(
      expect.arrayContaining(['request header apikey', 'request header Private-Token']),
    )
    expect(list.requests.map((r) => r.url)).toContain(
      `${site.url}/api/search?q=cats&state=[redacted]&ck=[redacted]&page=2`,
    )
    expect(list.requests.map((r) => r.url)).toContain(`${site.url}/app;jsessionid=[redacted]/items?page=1`)
    const graphql = list.requests.find((r) => r.url.endsWith('/graphql'))
    const body = await h.json<{ text: string; withheld: string[] }>('browser_network_request', {
      tabId,
      id: graphql?.id,
      part: 'requestBody',
    })
    expect(JSON.parse(body.text)).toEqual({
      operationName: 'Login',
      query: 'mutation Login { login(user: "[redacted]", password: "[redacted]", pin: [redacted]) { ok } }',
      variables: { otpCode: '[redacted]' },
    })
    expect(body.withheld).toEqual(expect.arrayContaining(['GraphQL literals', 'body field otpCode']))
    expect(frames.sockets).toEqual([
      {
        id: expect.any(String) as string,
        url: `${site.url.replace('http', 'ws')}/socket?access=[redacted]&room=[redacted]`,
      },
    ])
    expect(frames.frames).toHaveLength(4)
    await h.text('browser_network_stop', { tabId })
  })

  it('keeps every value when a person approved a recording that asked for credentials', async () => {
    await h.configSet('tool-permission.browser.browser_network_start', 'ask')
    const panel = await h.browser.openSidePanel()
    try {
      const tabId = await h.open('about:blank')
      const started = h.call('browser_network_start', { tabId, includeCredentials: true })
      const card = panel.locator('[data-approval-id]')
      await card.waitFor({ timeout: 15_000 })
      expect(await card.getByTestId('approval-params').textContent()).toContain('includeCredentials')
      await card.getByTestId('approve-once').click()
      expect(JSON.parse(textOf(await started))).toEqual({ tabId, capturing: true, credentials: 'included' })
      await h.text('browser_navigate', { tabId, url: `${site.url}/leaky` })
      await h.text('browser_wait_for', { tabId, text: 'all sent', timeoutMs: 15_000 })
      const list = JSON.parse(await h.text('browser_network_requests', { tabId, includeHeaders: true })) as {
        redaction?: string
        requests: Array<{ url: string; requestHeaders: Record<string, string>; withheld?: string[] }>
      }
      expect(list.redaction).toBeUndefined()
      const headers = list.requests.find((r) => r.url.endsWith('/api/headers'))
      expect(headers?.requestHeaders.apikey).toBe('LEAK-h-apikey')
      expect(headers?.withheld).toBeUndefined()
      const frames = await h.text('browser_websocket_frames', { tabId })
      expect(frames).toContain('LEAK-ws-url')
      expect(frames).toContain('LEAK-ws-sent-text')
      await h.text('browser_network_stop', { tabId })
    } finally {
      await panel.close()
      await h.configSet('tool-permission.browser.browser_network_start', 'auto')
    }
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textOf } from '../../helpers/mcpClient'
import { startCatalogueHarness, type CatalogueHarness } from './catalogueHarness'

/** Width and height of a PNG, JPEG or WebP (VP8/VP8L/VP8X) image from its header. */
function imageSize(data: string): { format: string; width: number; height: number } {
  const b = Buffer.from(data, 'base64')
  if (b.subarray(1, 4).toString('latin1') === 'PNG')
    return { format: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
  if (b[0] === 0xff && b[1] === 0xd8) {
    for (let i = 2; i < b.length;) {
      const marker = b[i + 1]!
      const length = b.readUInt16BE(i + 2)
      if (marker >= 0xc0 && marker <= 0xc2)
        return { format: 'jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) }
      i += 2 + length
    }
  }
  if (b.subarray(8, 12).toString('latin1') === 'WEBP') {
    const chunk = b.subarray(12, 16).toString('latin1')
    if (chunk === 'VP8 ')
      return { format: 'webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff }
    if (chunk === 'VP8X')
      return { format: 'webp', width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 }
    const bits = b.readUInt32LE(21)
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
  }
  throw new Error('unknown image format')
}

// Capture, console, network, routes, storage, script and dialogs as an agent sees them through MCP.
describe('built-in devtools, network and storage tools through MCP in real Chromium', () => {
  let h: CatalogueHarness
  beforeAll(async () => {
    h = await startCatalogueHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  it('browser_screenshot returns png, jpeg and webp images, held to 1568 px unless asked; browser_save_pdf writes a PDF', async () => {
    const tabId = await h.open(h.site.url('/read'))
    await h.json('browser_set_viewport', { tabId, width: 2400, height: 1200 })
    const shots = []
    for (const args of [{}, { format: 'jpeg', quality: 50 }, { format: 'webp', maxSide: 800 }]) {
      const result = await h.call('browser_screenshot', { tabId, ...args })
      expect(result.content).toHaveLength(1)
      const image = result.content[0] as { type: string; data: string; mimeType: string }
      expect(image.type).toBe('image')
      shots.push({ mimeType: image.mimeType, ...imageSize(image.data) })
    }
    expect(shots).toEqual([
      { mimeType: 'image/png', format: 'png', width: 1568, height: 784 },
      { mimeType: 'image/jpeg', format: 'jpeg', width: 1568, height: 784 },
      { mimeType: 'image/webp', format: 'webp', width: 800, height: 400 },
    ])
    const big = await h.call('browser_screenshot', { tabId, maxSide: 2400 })
    expect(imageSize((big.content[0] as { data: string }).data)).toMatchObject({ width: 2400, height: 1200 })
    expect(textOf(await h.call('browser_screenshot', { tabId, quality: 5 }))).toBe(
      '[tool_error] quality applies to jpeg and webp only: set format too',
    )
    await h.json('browser_clear_emulation', { tabId })
    const pdf = await h.json<{ downloadId: number; filename: string; bytes: number }>('browser_save_pdf', {
      tabId,
      filename: 'notes.pdf',
    })
    // Under Playwright, Chrome saves downloads in Playwright's own folder under generated names.
    expect(pdf.filename).not.toBe('')
    expect(pdf.bytes).toBeGreaterThan(1000)
    expect(await h.json('browser_download_status', { id: pdf.downloadId })).toMatchObject({
      id: pdf.downloadId,
      state: 'complete',
      filename: pdf.filename,
    })
  })

  it('browser_console_message gives one message with its stack; browser_console_clear forgets earlier ones', async () => {
    const tabId = await h.open(h.site.url('/logs'))
    const logs = await h.json<{ entries: { id: number; level: string; text: string }[] }>(
      'browser_console_logs',
      {
        tabId,
      },
    )
    const failure = logs.entries.find((e) => e.text.includes('exploded in helper'))!
    expect(failure.level).toBe('error')
    const message = await h.json<{ text: string; stack: { function: string; line: number }[] }>(
      'browser_console_message',
      { tabId, id: failure.id },
    )
    expect(message.text).toContain('exploded in helper')
    expect(message.stack[0]).toEqual({
      function: 'helperThatFails',
      url: h.site.url('/logs'),
      line: 1,
      column: expect.any(Number),
    })
    expect(await h.json('browser_console_clear', { tabId })).toEqual({ cleared: logs.entries.length })
    expect(await h.json('browser_console_logs', { tabId })).toEqual({ entries: [], total: 0 })
    expect(await h.error('browser_console_message', { tabId, id: failure.id })).toMatch(
      /^\[tool_error\] no console message \d+ on the page/,
    )
  })

  it('browser_network_request reads one request by part; browser_websocket_frames shows frames both ways', async () => {
    const tabId = await h.open('about:blank')
    await h.json('browser_network_start', { tabId })
    await h.text('browser_navigate', { tabId, url: h.site.url('/logs') })
    await h.json('browser_wait_for', { tabId, text: 'ws:echo: ping from page' })
    const { requests } = await h.json<{ requests: { id: string; url: string }[] }>(
      'browser_network_requests',
      {
        tabId,
        urlContains: '/api/echo',
      },
    )
    const id = requests[0]!.id
    const part = (p: string, extra: Record<string, unknown> = {}) =>
      h.json<{ text: string; truncated: boolean }>('browser_network_request', {
        tabId,
        id,
        part: p,
        ...extra,
      })
    // Values of the page's request body pass only under harmless names, as in the recording.
    expect((await part('requestBody')).text).toBe('{"hello":"[redacted]","password":"[redacted]"}')
    expect(JSON.parse((await part('responseBody')).text)).toEqual({ echoed: 38, note: 'echo reply body' })
    expect(JSON.parse((await part('requestHeaders')).text)).toMatchObject({
      'content-type': 'application/json',
    })
    expect(JSON.parse((await part('responseHeaders')).text)).toMatchObject({
      'content-type': 'application/json',
    })
    const cut = await part('responseBody', { maxLength: 100, offset: 10 })
    expect(cut.truncated).toBe(false)
    expect(cut.text).toBe('{"echoed":38,"note":"echo reply body"}'.slice(10))
    const frames = await h.json<{
      sockets: { url: string }[]
      frames: { direction: string; text: string }[]
    }>('browser_websocket_frames', { tabId })
    expect(frames.sockets).toEqual([{ id: expect.any(String), url: expect.stringMatching(/\/socket$/) }])
    // Frames that are not JSON are withheld whole, each named by its length.
    expect(frames.frames.map((f) => [f.direction, f.text])).toEqual([
      ['sent', '[redacted] (14 characters)'],
      ['received', '[redacted] (20 characters)'],
    ])
    await h.json('browser_network_stop', { tabId })
  })

  it('routes block or answer matching requests at once; browser_network_conditions takes a tab offline', async () => {
    const tabId = await h.open(h.site.url('/fetcher'))
    const added = await h.json<{ id: string }>('browser_route_add', {
      tabId,
      urlPattern: '*/api/thing*',
      action: 'fulfill',
      status: 200,
      body: 'from route',
    })
    await h.text('browser_click', { tabId, selector: '#go' })
    await h.json('browser_wait_for', { tabId, text: 'got:from route' })
    await h.json('browser_route_remove', { tabId, id: added.id })
    await h.json('browser_route_add', { tabId, urlPattern: '*/api/thing*', action: 'block' })
    expect(await h.json('browser_route_list', { tabId })).toEqual({
      routes: [{ id: expect.stringMatching(/^r\d+$/), urlPattern: '*/api/thing*', action: 'block', hits: 0 }],
    })
    await h.text('browser_click', { tabId, selector: '#go' })
    await h.json('browser_wait_for', { tabId, text: 'failed' })
    expect(await h.json('browser_route_remove', { tabId })).toEqual({ removed: 1, routes: [] })
    expect(h.site.seen.filter((s) => s === 'GET /api/thing')).toEqual([])
    await h.text('browser_click', { tabId, selector: '#go' })
    await h.json('browser_wait_for', { tabId, text: 'got:from server' })
    expect(await h.json('browser_network_conditions', { tabId, offline: true })).toMatchObject({
      offline: true,
    })
    await h.text('browser_click', { tabId, selector: '#go' })
    await h.json('browser_wait_for', { tabId, text: 'failed' })
    await h.json('browser_network_conditions', { tabId })
    await h.text('browser_click', { tabId, selector: '#go' })
    await h.json('browser_wait_for', { tabId, text: 'got:from server' })
  })

  it('cookies and web storage change for one origin at a time', async () => {
    const tabId = await h.open(h.site.url('/read'))
    const origin = new URL(h.site.url('/')).origin
    expect(await h.json('browser_set_cookie', { tabId, name: 'pref', value: 'compact' })).toMatchObject({
      url: h.site.url('/read'),
      name: 'pref',
      domain: '127.0.0.1',
      path: '/',
    })
    const cookies = await h.json<{ cookies: { name: string; value?: string }[] }>('browser_get_cookies', {
      tabId,
      includeValues: true,
    })
    expect(cookies.cookies).toContainEqual(expect.objectContaining({ name: 'pref', value: 'compact' }))
    expect(await h.json('browser_delete_cookie', { tabId, name: 'pref' })).toEqual({
      url: h.site.url('/read'),
      name: 'pref',
      deleted: true,
    })
    expect(await h.json('browser_storage_set', { tabId, key: 'k', value: 'v' })).toEqual({
      origin,
      storage: 'local',
      key: 'k',
      count: 1,
    })
    await h.json('browser_storage_set', { tabId, key: 's', value: '1', storage: 'session' })
    expect(await h.json('browser_storage_remove', { tabId, key: 'k' })).toEqual({
      origin,
      storage: 'local',
      key: 'k',
      existed: true,
      count: 0,
    })
    expect(await h.json('browser_storage_clear', { tabId, storage: 'session' })).toEqual({
      origin,
      storage: 'session',
      removed: 1,
    })
  })

  it('browser_clear_site_data asks first under an auto default, and clears only the origin the tab shows', async () => {
    const { tools } = await h.mcp.client.listTools()
    expect(tools.find((t) => t.name === 'browser_clear_site_data')?.description).toMatch(
      /^\[asks for approval\] /,
    )
    const tabId = await h.open(h.site.url('/read'))
    const origin = new URL(h.site.url('/')).origin
    await h.json('browser_storage_set', { tabId, key: 'keep', value: 'no' })
    await h.json('browser_set_cookie', { tabId, name: 'c', value: '1' })
    const panel = await h.browser.openSidePanel()
    const wrong = h.call('browser_clear_site_data', { tabId, origin: 'http://localhost:1' })
    const card = panel.locator('[data-approval-id]')
    await card.waitFor()
    expect(await card.textContent()).toContain('browser_clear_site_data')
    await card.getByTestId('approve-once').click()
    expect(textOf(await wrong)).toBe(
      `[tool_error] tab ${tabId} shows ${origin}, not http://localhost:1: nothing was cleared`,
    )
    const cleared = h.call('browser_clear_site_data', { tabId, origin })
    await card.waitFor()
    await card.getByTestId('approve-once').click()
    expect(JSON.parse(textOf(await cleared))).toMatchObject({
      origin,
      cleared: expect.arrayContaining(['cookies']),
    })
    await panel.close()
    expect((await h.json<{ cookies: unknown[] }>('browser_get_cookies', { tabId })).cookies).toEqual([])
    expect(await h.json('browser_local_storage_get', { tabId })).toMatchObject({ count: 0 })
  })

  it('browser_evaluate is off under an auto default until enabled by name, and "allow always" never makes it auto', async () => {
    const { tools } = await h.mcp.client.listTools()
    expect(tools.map((t) => t.name)).not.toContain('browser_evaluate')
    const tabId = await h.open(h.site.url('/read'))
    expect(await h.error('browser_evaluate', { tabId, expression: 'document.title' })).toMatch(
      /^\[permission_off\] /,
    )
    // Set to ask by name, "allow always" runs the call once and leaves the tool asking.
    await h.configSet('tool-permission.browser.browser_evaluate', 'ask')
    const panel = await h.browser.openSidePanel()
    const asked = h.call('browser_evaluate', { tabId, expression: '1 + 1' })
    const card = panel.locator('[data-approval-id]')
    await card.waitFor()
    expect(await card.locator('[data-testid=approval-params]').textContent()).toContain('1 + 1')
    await card.getByTestId('approve-always').click()
    expect(JSON.parse(textOf(await asked))).toEqual({ value: 2 })
    await panel.close()
    const health = (await (await h.daemon.fetch('/health')).json()) as { disabledBrowserTools: string[] }
    expect(health.disabledBrowserTools).not.toContain('browser_evaluate')
    const listed = (await h.mcp.client.listTools()).tools.find((t) => t.name === 'browser_evaluate')
    expect(listed?.description).toMatch(/^\[asks for approval\] /)
    await h.configSet('tool-permission.browser.browser_evaluate', 'auto')
    expect(await h.json('browser_evaluate', { tabId, expression: 'document.title + " " + (6 * 7)' })).toEqual(
      {
        value: 'Reading 42',
      },
    )
    expect(await h.json('browser_evaluate', { tabId, expression: 'Promise.resolve({ a: [1, 2] })' })).toEqual(
      {
        value: { a: [1, 2] },
      },
    )
    expect(await h.json('browser_evaluate', { tabId, expression: 'null.x' })).toEqual({
      exception: expect.stringMatching(/^TypeError: Cannot read properties of null/),
    })
  })

  it('an open dialog is named in every result until it is answered', async () => {
    const tabId = await h.open(h.site.url('/dialog'))
    // Playwright dismisses dialogs of pages nobody listens on; this listener leaves them to bridge.
    await expect
      .poll(() => h.browser.context.pages().some((p) => p.url() === h.site.url('/dialog')))
      .toBe(true)
    const page = h.browser.context.pages().findLast((p) => p.url() === h.site.url('/dialog'))!
    page.on('dialog', () => undefined)
    await h.text('browser_click', { tabId, selector: '#ask' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const other = await h.json<{ openDialogs?: unknown[] }>('browser_list_windows')
    expect(other.openDialogs).toEqual([
      { tabId, type: 'alert', message: 'Heads up', answerWith: 'browser_handle_dialog' },
    ])
    expect(await h.error('browser_get_text', { tabId })).toBe(
      `[tool_error] a alert dialog is open in tab ${tabId} ("Heads up"): answer it with browser_handle_dialog first`,
    )
    expect(await h.json('browser_handle_dialog', { tabId, accept: true })).toEqual({
      handled: true,
      accepted: true,
      type: 'alert',
      message: 'Heads up',
    })
    expect((await h.json<{ openDialogs?: unknown }>('browser_list_windows')).openDialogs).toBeUndefined()
  })

  it('downloads a URL, waits for a download a click started, and reports its status', async () => {
    const got = await h.json<{ id: number; state: string; filename: string }>('browser_download', {
      url: h.site.url('/report.csv'),
      filename: 'direct.csv',
    })
    expect(got).toMatchObject({ url: h.site.url('/report.csv'), state: 'complete', totalBytes: 8 })
    const tabId = await h.open(h.site.url('/download'))
    const since = Date.now()
    await h.text('browser_click', { tabId, selector: '#dl' })
    const clicked = await h.json<{ id: number; filename: string; state: string }>(
      'browser_wait_for_download',
      {
        sinceMs: since,
      },
    )
    expect(clicked).toMatchObject({ url: h.site.url('/report.csv'), state: 'complete', bytesReceived: 8 })
    expect(await h.json('browser_download_status', { id: clicked.id })).toEqual(clicked)
    expect(
      await h.error('browser_wait_for_download', { sinceMs: Date.now() + 60_000, timeoutMs: 300 }),
    ).toMatch(/^\[tool_error\] no download started since/)
  })
})

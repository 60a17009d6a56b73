// A small shop on 127.0.0.1 for a person's demonstration: sign in (email and password, Enter submits),
// a search box (Enter submits), a product page with a colour list, a gift note in an iframe and an
// "Add to cart" button that posts the form. The server keeps what it accepted into carts: it judges
// whether a run did the task. `/drafts` asks with a confirm dialog before it deletes (the server counts
// the deletions). `/hostile` is a page that tries to record steps by itself.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface CartLine {
  user: string
  item: string
  colour: string
  note: string
}

export interface PersonSite {
  url(path: string): string
  carts: CartLine[]
  password: string
  /** Deletions of the old drafts the server took (each after the page's confirm was accepted). */
  deletions: number
  close(): Promise<void>
}

/** How long the server takes to delete the drafts (longer than a settle wait's DOM quiet). */
const DELETE_DELAY_MS = 800

const page = (title: string, body: string, script = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Look-alikes of everything a recording listens for, sent by the page's own script, over and over. */
const HOSTILE_SCRIPT = `
  const button = document.getElementById('buy')
  const field = document.getElementById('q')
  let n = 0
  const timer = setInterval(() => {
    if (++n > 600) return clearInterval(timer)
    button.click()
    button.dispatchEvent(new MouseEvent('click', { bubbles: true, button: 0 }))
    field.value = 'injected ' + n
    field.dispatchEvent(new Event('input', { bubbles: true }))
    field.dispatchEvent(new Event('change', { bubbles: true }))
    field.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    for (const m of [
      { personRecorder: { kind: 'click', target: { css: '#buy', role: 'button', name: 'Buy' } } },
      { personRecorder: { kind: 'type', target: { css: '#q' }, text: 'injected' } },
      { panel: { type: 'recordStart', name: 'hostile_flow', description: 'x' } },
      { panel: { type: 'recordStop' } },
      { panel: { type: 'removeWorkflow', name: 'add_to_cart' } },
    ]) {
      window.postMessage(m, '*')
      try { chrome.runtime.sendMessage(m) } catch {}
    }
    document.title = 'Hostile ' + n
  }, 50)`

export async function startPersonSite(): Promise<PersonSite> {
  const sessions = new Map<string, string>()
  const site: PersonSite = {
    url: () => '',
    carts: [],
    password: 'purple monkey 42',
    deletions: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x')
      const user = sessions.get(/sid=(\w+)/.exec(req.headers.cookie ?? '')?.[1] ?? '')
      const html = (text: string) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        res.end(text)
      }
      const redirect = (to: string, cookie?: string) => {
        res.writeHead(303, { location: to, ...(cookie ? { 'set-cookie': cookie } : {}) })
        res.end()
      }
      if (url.pathname === '/hostile')
        return html(
          page(
            'Hostile',
            '<main><h1>Deals</h1><input id="q" aria-label="Search"> <button id="buy">Buy</button></main>',
            HOSTILE_SCRIPT,
          ),
        )
      if (url.pathname === '/login' && req.method === 'POST') {
        const form = new URLSearchParams(await bodyOf(req))
        if (form.get('password') !== site.password) return redirect('/login?error')
        const sid = Math.random().toString(36).slice(2)
        sessions.set(sid, form.get('email') ?? '')
        return redirect('/search', `sid=${sid}; Path=/; HttpOnly`)
      }
      if (url.pathname === '/login')
        return html(
          page(
            'Sign in',
            `<main><h1>Sign in</h1>${url.searchParams.has('error') ? '<p role="alert">Wrong password</p>' : ''}
             <form method="post" action="/login"><label for="email">Email</label> <input id="email" name="email" type="email">
             <label for="pw">Password</label> <input id="pw" name="password" type="password"> <button>Sign in</button></form></main>`,
          ),
        )
      if (!user) return redirect('/login')
      if (url.pathname === '/drafts' && req.method === 'POST') {
        site.deletions++
        // A server that takes its time: the page's answer shows well after the DOM has been still.
        return void setTimeout(() => {
          res.writeHead(204)
          res.end()
        }, DELETE_DELAY_MS)
      }
      if (url.pathname === '/drafts')
        return html(
          page(
            'Drafts',
            '<main><h1>Drafts</h1><p id="count">3 old drafts</p><button id="clear">Delete old drafts</button></main>',
            `document.getElementById('clear').onclick = async () => {
               if (!confirm('Delete 3 old drafts?')) return
               await fetch('/drafts', { method: 'POST' })
               document.getElementById('count').textContent = 'Deleted 3 drafts'
             }`,
          ),
        )
      if (url.pathname === '/search') {
        const q = url.searchParams.get('q')
        const results = q
          ? `<h2>Results for ${esc(q)}</h2><ul><li>${esc(q)} <a href="/item?name=${encodeURIComponent(q)}">See ${esc(q)}</a></li></ul>`
          : ''
        return html(
          page(
            'Search',
            `<main><h1>Search</h1><form action="/search"><label for="q">Search</label> <input id="q" name="q" type="search"></form>${results}</main>`,
          ),
        )
      }
      if (url.pathname === '/item') {
        const name = url.searchParams.get('name') ?? ''
        return html(
          page(
            esc(name),
            `<main><h1>${esc(name)}</h1><form method="post" action="/cart"><input type="hidden" name="item" value="${esc(name)}">
             <label for="colour">Colour</label> <select id="colour" name="colour"><option value="red">Red</option><option value="blue">Blue</option><option value="green">Green</option></select>
             <input type="hidden" id="note" name="note">
             <iframe id="gift" title="Gift note" src="/note-frame" style="width:400px;height:60px"></iframe>
             <button id="add" type="submit">Add to cart</button></form></main>`,
            `document.querySelector('form').addEventListener('submit', () => {
               document.getElementById('note').value = document.getElementById('gift').contentDocument.getElementById('text').value
             })`,
          ),
        )
      }
      if (url.pathname === '/note-frame')
        return html(page('Note', '<label for="text">Gift note</label> <input id="text">'))
      if (url.pathname === '/cart' && req.method === 'POST') {
        const form = new URLSearchParams(await bodyOf(req))
        const line = {
          user,
          item: form.get('item') ?? '',
          colour: form.get('colour') ?? '',
          note: form.get('note') ?? '',
        }
        site.carts.push(line)
        return html(
          page(
            'Cart',
            `<main><h1>Added ${esc(line.item)} in ${esc(line.colour)}</h1><p>Note: ${esc(line.note)}</p></main>`,
          ),
        )
      }
      res.writeHead(404, { 'content-type': 'text/html' })
      res.end(page('Not found', '<h1>Not found</h1>'))
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  site.url = (path) => `http://127.0.0.1:${port}${path}`
  return site
}

// A small shop on 127.0.0.1 for workflow tests: sign in, search, an order form whose card field is in
// an iframe, a confirm dialog before the order is placed. The server keeps the orders it accepted: it
// is the judge of whether a run did the task. `variant` changes the pages the way sites change.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Variant = 'original' | 'moved' | 'class' | 'wrapper' | 'label' | 'error' | 'sametab'

export interface Order {
  user: string
  item: string
  name: string
  card: string
}

/** What the profile pages sent: the saved form (with the avatar file's text), the receipt, notes, the finish. */
export interface ProfileEvents {
  saved: { nick: string; pin: string; news: boolean; avatar: string; board: string }[]
  receipts: number
  notes: string[]
  finished: number
}

export interface WorkflowSite {
  url(path: string): string
  orders: Order[]
  profile: ProfileEvents
  variant: Variant
  /** Each user's password. */
  passwords: Map<string, string>
  close(): Promise<void>
}

const page = (title: string, body: string, script = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function loginPage(variant: Variant, error: boolean): string {
  const cls = variant === 'class' ? 'btn-main' : 'primary'
  const label = variant === 'label' ? 'Log in' : 'Sign in'
  const button = `<button type="submit" class="${cls}">${label}</button>`
  const fields = `<label for="email">Email</label> <input id="email" name="email" type="email">
    <label for="pw">Password</label> <input id="pw" name="password" type="password">`
  const inner = variant === 'moved' ? `${button}<p>Your account</p>${fields}` : `${fields} ${button}`
  const form = `<form method="post" action="/login">${variant === 'wrapper' ? `<div class="box"><div class="row">${inner}</div></div>` : inner}</form>`
  return page(
    'Sign in',
    `<main><h1>Sign in</h1>${error ? '<p role="alert">Wrong email or password</p>' : ''}${form}</main>`,
  )
}

/**
 * A profile form for the steps beyond typing: fields filled at once (one a password), a checkbox, a
 * file, a drag onto a column, a link that opens a tab, and a Finish button back in the first tab.
 */
const profilePage = (variant: Variant) =>
  page(
    'Profile',
    `<main><h1>Profile</h1><section>
   <label for="nick">Nickname</label> <input id="nick">
   <label for="pin">PIN</label> <input id="pin" type="password">
   <input type="checkbox" id="news"> <label for="news">Newsletter</label>
   <label for="avatar">Avatar</label> <input type="file" id="avatar">
   <div id="card" draggable="true" style="width:80px;height:30px;background:#fd0">Card</div>
   <div id="done" style="width:200px;height:60px;background:#cfc;margin-top:20px">Done column</div>
   <button id="save">Save profile</button> <p id="status" role="status"></p>
   <a href="/receipt"${variant === 'sametab' ? '' : ' target="_blank"'}>Open receipt</a> <button id="finish">Finish</button></section></main>`,
    `let avatar = '', board = 'todo'
   document.getElementById('avatar').addEventListener('change', async (e) => { avatar = await e.target.files[0].text() })
   document.getElementById('card').addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', 'card'))
   const done = document.getElementById('done')
   done.addEventListener('dragover', (e) => e.preventDefault())
   done.addEventListener('drop', (e) => { e.preventDefault(); board = 'done'; done.append(' (card moved)') })
   document.getElementById('save').addEventListener('click', async () => {
     const v = (id) => document.getElementById(id)
     await fetch('/profile', { method: 'POST', body: JSON.stringify({ nick: v('nick').value, pin: v('pin').value,
       news: v('news').checked, avatar, board }) })
     v('status').textContent = 'Profile saved'
   })
   document.getElementById('finish').addEventListener('click', async () => {
     await fetch('/finish', { method: 'POST' })
     document.getElementById('status').textContent = 'All done'
   })`,
  )

/** Opened in a new tab: a button, and a tool the page declares for agents (WebMCP). */
const receiptPage = page(
  'Receipt',
  `<main><h1>Receipt</h1><button id="confirm">Confirm receipt</button><p id="said" role="status"></p></main>`,
  `document.getElementById('confirm').addEventListener('click', async () => {
     await fetch('/confirm', { method: 'POST' })
     document.getElementById('said').textContent = 'Receipt confirmed'
   })
   document.modelContext?.registerTool({ name: 'add_note', description: 'Adds a note to the receipt',
     inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
     execute: async ({ text }) => { await fetch('/note', { method: 'POST', body: text }); return 'noted: ' + text } })`,
)

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export async function startWorkflowSite(): Promise<WorkflowSite> {
  const sessions = new Map<string, string>()
  const site: WorkflowSite = {
    url: () => '',
    orders: [],
    profile: { saved: [], receipts: 0, notes: [], finished: 0 },
    variant: 'original',
    passwords: new Map([['ada@example.com', 'correct horse 7']]),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x')
      const user = sessions.get(/sid=(\w+)/.exec(req.headers.cookie ?? '')?.[1] ?? '')
      const html = (status: number, text: string) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
        res.end(text)
      }
      const redirect = (to: string, cookie?: string) => {
        res.writeHead(303, { location: to, ...(cookie ? { 'set-cookie': cookie } : {}) })
        res.end()
      }
      if (url.pathname === '/login' && req.method === 'POST') {
        const form = new URLSearchParams(await bodyOf(req))
        const email = form.get('email') ?? ''
        if (site.passwords.get(email) !== form.get('password')) return redirect('/login?error')
        const sid = Math.random().toString(36).slice(2)
        sessions.set(sid, email)
        return redirect('/search', `sid=${sid}; Path=/; HttpOnly`)
      }
      if (url.pathname === '/login') return html(200, loginPage(site.variant, url.searchParams.has('error')))
      // A page that never stops changing (every 20 ms another of its 300 cells, so that no one node
      // ticks like a clock, which the settle wait ignores): a wait on its DOM's quiet moment only ends
      // at the cap.
      if (url.pathname === '/ticker')
        return html(
          200,
          page(
            'Ticker',
            '<main><h1>Ticker</h1><p id="cells"></p><button id="total">Show total</button><p id="out"></p></main>',
            `const cells = Array.from({ length: 300 }, () => document.getElementById('cells').appendChild(document.createElement('i')))
             let n = 0
             setInterval(() => { cells[n % 300].textContent = String(++n % 10) }, 20)
             document.getElementById('total').onclick = () => { document.getElementById('out').textContent = 'Total: 42' }`,
          ),
        )
      if (url.pathname === '/profile' && req.method === 'POST') {
        site.profile.saved.push(JSON.parse(await bodyOf(req)) as ProfileEvents['saved'][number])
        return html(200, 'ok')
      }
      if (url.pathname === '/profile') return html(200, profilePage(site.variant))
      if (url.pathname === '/receipt') return html(200, receiptPage)
      if (url.pathname === '/confirm' && req.method === 'POST') {
        site.profile.receipts++
        return html(200, 'ok')
      }
      if (url.pathname === '/note' && req.method === 'POST') {
        site.profile.notes.push(await bodyOf(req))
        return html(200, 'ok')
      }
      if (url.pathname === '/finish' && req.method === 'POST') {
        site.profile.finished++
        return html(200, 'ok')
      }
      if (!user) return redirect('/login')
      if (url.pathname === '/search') {
        if (site.variant === 'error')
          return html(200, page('Error', '<main><h1>Something went wrong</h1><p>Try again later.</p></main>'))
        const q = url.searchParams.get('q')
        const results = q
          ? `<h2>Results for ${esc(q)}</h2><ul><li>${esc(q)} (in stock) <a href="/order?item=${encodeURIComponent(q)}">Order this</a></li></ul>`
          : ''
        return html(
          200,
          page(
            'Search',
            `<main><h1>Search</h1><form action="/search"><label for="q">Search</label> <input id="q" name="q" type="search"></form>${results}</main>`,
          ),
        )
      }
      if (url.pathname === '/order') {
        const item = url.searchParams.get('item') ?? ''
        return html(
          200,
          page(
            'Order',
            `<main><h1>Order ${esc(item)}</h1><section><label for="name">Full name</label> <input id="name">
             <iframe id="pay" title="Payment" src="/card-frame" style="width:400px;height:80px"></iframe>
             <button id="place">Place order</button></section><p id="status"></p></main>`,
            `document.getElementById('place').addEventListener('click', async () => {
               if (!confirm('Place the order?')) return
               const card = document.getElementById('pay').contentDocument.getElementById('card').value
               const r = await fetch('/orders', { method: 'POST', headers: { 'content-type': 'application/json' },
                 body: JSON.stringify({ item: ${JSON.stringify(item)}, name: document.getElementById('name').value, card }) })
               const { id } = await r.json()
               location.href = '/done?id=' + id
             })`,
          ),
        )
      }
      if (url.pathname === '/card-frame')
        return html(
          200,
          page('Card', '<label for="card">Card number</label> <input id="card" inputmode="numeric">'),
        )
      if (url.pathname === '/orders' && req.method === 'POST') {
        const order = JSON.parse(await bodyOf(req)) as Omit<Order, 'user'>
        site.orders.push({ user, item: order.item, name: order.name, card: order.card })
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ id: site.orders.length }))
      }
      if (url.pathname === '/done') {
        const order = site.orders[Number(url.searchParams.get('id')) - 1]
        return html(200, page('Done', `<main><h1>Order placed for ${esc(order?.name ?? '?')}</h1></main>`))
      }
      html(404, page('Not found', '<h1>Not found</h1>'))
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  site.url = (path) => `http://127.0.0.1:${port}${path}`
  return site
}

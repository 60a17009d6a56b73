// The benchmark's pages, served on 127.0.0.1 by two servers (a second origin for the cross-origin
// frame). Each task's success is decided here, by what the page sent back (a reply, an order shipped,
// a form posted) or by the answer the agent gives (`POST /answer/<task>`), never by the agent's word.
import { createServer } from 'node:http'
import { createClickableApi } from '../../test/fixtures/clickable/corpus.mjs'

const page = (title, body, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:15px system-ui;margin:0 24px}nav a{margin-right:12px}.row{display:flex;gap:12px;padding:6px;border-bottom:1px solid #ddd;cursor:pointer}</style>
</head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`

const WORDS =
  'the river valley held quiet farms whose owners traded grain wool and timber with towns along the coast while engineers surveyed new roads'.split(
    ' ',
  )
/** Deterministic filler prose: the same text on every run. */
function prose(seed, words) {
  let x = seed * 7919 + 17
  const out = []
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    out.push(WORDS[x % WORDS.length])
  }
  const text = out.join(' ')
  return `${text[0].toUpperCase()}${text.slice(1)}.`
}

const NAV = `<header><nav aria-label="Site"><a href="/">Home</a><a href="/news">News</a><a href="/about">About</a><a href="/contact">Contact</a></nav></header>`

function article() {
  const paragraphs = []
  for (let i = 0; i < 24; i++) {
    if (i === 6) paragraphs.push('<h2>Building the dome</h2>')
    if (i === 14) paragraphs.push('<h2>Opening day</h2>')
    paragraphs.push(
      i === 16
        ? `<p>${prose(i, 40)} The observatory opened to the public in 1911, after nine years of work. ${prose(i + 100, 30)}</p>`
        : `<p>${prose(i, 70)}</p>`,
    )
  }
  return page(
    'The hill observatory',
    `${NAV}<main><article><h1>The hill observatory</h1><p><i>By A. Writer, 12 March</i></p>${paragraphs.join('')}</article></main>
<aside><h2>Related</h2><ul>${['Star maps', 'Old telescopes', 'Night walks', 'Lens making'].map((t) => `<li><a href="/r/${t.length}">${t}</a></li>`).join('')}</ul></aside>
<footer><p>© Hill Gazette</p><a href="/privacy">Privacy</a></footer>`,
  )
}

const SENDERS = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov']
const SUBJECTS = ['Lunch on Friday', 'Budget review', 'Build is red', 'Team offsite', 'Invoice 2231']
const MESSAGES = Array.from({ length: 25 }, (_, i) => ({
  id: i + 1,
  from: SENDERS[(i * 3) % 5],
  subject: SUBJECTS[(i * 2 + 1) % 5] + (i > 4 ? ` (${i})` : ''),
  date: `Nov ${26 - i}`,
  body: prose(i + 300, 35),
}))
// The one the inbox task answers.
Object.assign(MESSAGES[1], { from: 'Grace Hopper', subject: 'Budget review: Q4' })

function inbox() {
  const rows = MESSAGES.map(
    (m) =>
      `<li class="row" data-id="${m.id}" tabindex="0"><b>${m.from}</b><span>${m.subject}</span><small>${m.date}</small></li>`,
  ).join('')
  return page(
    'Inbox (25)',
    `${NAV}<main><h1>Inbox</h1><ul id="list" aria-label="Messages" style="list-style:none;padding:0">${rows}</ul><section id="pane" aria-label="Message"></section></main>`,
    `const pane = document.getElementById('pane')
document.getElementById('list').addEventListener('click', async (e) => {
  const row = e.target.closest('li'); if (!row) return
  pane.innerHTML = '<p>Loading…</p>'
  const m = await (await fetch('/api/message/' + row.dataset.id)).json()
  pane.innerHTML = '<h2></h2><p class="from"></p><p class="body"></p><button id="reply">Reply</button>'
  pane.querySelector('h2').textContent = m.subject
  pane.querySelector('.from').textContent = 'From ' + m.from
  pane.querySelector('.body').textContent = m.body
  pane.querySelector('#reply').onclick = () => {
    const form = document.createElement('form')
    form.innerHTML = '<label>Reply text <textarea name="text"></textarea></label> <button>Send</button>'
    form.onsubmit = async (ev) => {
      ev.preventDefault()
      await fetch('/api/reply', { method: 'POST', body: JSON.stringify({ id: m.id, text: form.text.value }) })
      pane.innerHTML = '<p role="status">Reply sent</p>'
    }
    pane.append(form)
  }
})`,
  )
}

/**
 * Web-mail as it is often written: each message a <tr> with a click handler and a pointer cursor, no
 * tabindex; opening one POSTs to the server (marked read) before showing it, and an unread counter
 * listens on a long poll the server answers whenever the state changes.
 */
function mail() {
  const rows = MESSAGES.slice(0, 12)
    .map(
      (m) =>
        `<tr data-id="${m.id}"><td><input type="checkbox" aria-label="Select"></td><td>${m.from}</td><td>${m.subject}</td><td>${m.date}</td></tr>`,
    )
    .join('')
  return page(
    'Mail',
    `${NAV}<main><h1>Mail</h1><p id="unread">12 unread</p><table class="mail"><tbody id="rows">${rows}</tbody></table><section id="pane" aria-label="Message"></section><p id="status" role="status"></p></main>
<style>.mail tr{cursor:pointer}.mail td{padding:4px 8px}</style>`,
    `async function poll() {
  for (;;) {
    try { const n = await (await fetch('/api/unread')).json(); document.getElementById('unread').textContent = n.unread + ' unread' }
    catch { await new Promise((r) => setTimeout(r, 1000)) }
  }
}
poll()
const pane = document.getElementById('pane')
for (const row of document.querySelectorAll('#rows tr')) row.addEventListener('click', async (e) => {
  if (e.target.closest('input')) return
  const m = await (await fetch('/api/read', { method: 'POST', body: JSON.stringify({ id: Number(row.dataset.id) }) })).json()
  row.style.fontWeight = 'normal'
  pane.innerHTML = '<h2></h2><p class="from"></p><p class="body"></p>'
  pane.querySelector('h2').textContent = m.subject
  pane.querySelector('.from').textContent = 'From ' + m.from
  pane.querySelector('.body').textContent = m.body
  const archive = document.createElement('span')
  archive.className = 'archive'; archive.textContent = 'Archive'; archive.style.cursor = 'pointer'
  archive.addEventListener('click', async () => {
    await fetch('/api/archive', { method: 'POST', body: JSON.stringify({ id: m.id }) })
    row.remove(); pane.innerHTML = ''
    document.getElementById('status').textContent = 'Archived: ' + m.subject
  })
  pane.append(archive)
})`,
  )
}

/** The 20 fields of the form task: [label, name, kind, value the task sets, extra]. */
export const FORM_FIELDS = [
  ['First name', 'first', 'text', 'Ada'],
  ['Last name', 'last', 'text', 'Lovelace'],
  ['Email', 'email', 'email', 'ada@example.com'],
  ['Phone', 'phone', 'tel', '+44 20 7946 0000'],
  ['Street', 'street', 'text', '12 St James Square'],
  ['City', 'city', 'text', 'London'],
  ['Postcode', 'postcode', 'text', 'SW1Y 4JH'],
  [
    'Country',
    'country',
    'select',
    'United Kingdom',
    ['Germany', 'France', 'United Kingdom', 'Italy', 'Spain'],
  ],
  ['Company', 'company', 'text', 'Analytical Engines'],
  ['Job title', 'title', 'text', 'Programmer'],
  ['Team size', 'size', 'select', '11-50', ['1-10', '11-50', '51-200', '200+']],
  ['Start date', 'start', 'date', '2026-12-01'],
  ['Budget', 'budget', 'number', '5000'],
  ['Website', 'website', 'url', 'https://example.com'],
  ['Plan', 'plan', 'select', 'Pro', ['Free', 'Team', 'Pro', 'Enterprise']],
  ['Referral code', 'ref', 'text', 'BRIDGE26'],
  ['Notes', 'notes', 'textarea', 'Call after 10am.'],
  ['Newsletter', 'news', 'checkbox', true],
  ['Terms accepted', 'terms', 'checkbox', true],
  ['Contact by phone', 'byphone', 'checkbox', false],
]

function form() {
  const fields = FORM_FIELDS.map(([label, name, kind, , options]) => {
    if (kind === 'select')
      return `<p><label>${label} <select name="${name}"><option value="">Choose…</option>${options.map((o) => `<option>${o}</option>`).join('')}</select></label></p>`
    if (kind === 'textarea') return `<p><label>${label} <textarea name="${name}"></textarea></label></p>`
    if (kind === 'checkbox')
      return `<p><label><input type="checkbox" name="${name}"${name === 'byphone' ? ' checked' : ''}> ${label}</label></p>`
    return `<p><label>${label} <input type="${kind}" name="${name}"></label></p>`
  }).join('')
  return page(
    'Sign up for a trial',
    `${NAV}<main><h1>Start your trial</h1><form method="post" action="/form">${fields}<button type="submit">Start trial</button></form></main>`,
  )
}

const STATUSES = ['Paid', 'Pending', 'Refunded']
function table() {
  const rows = Array.from({ length: 500 }, (_, i) => {
    const n = i + 1
    return `<tr><td>#${String(n).padStart(4, '0')}</td><td>${SENDERS[n % 5]}</td><td>${((n * 37) % 900) + 10}.00</td><td>${STATUSES[n % 3]}</td><td><button data-id="${n}">Ship</button></td></tr>`
  }).join('')
  return page(
    'Orders',
    `${NAV}<main><h1>Orders</h1><table><thead><tr><th>Order</th><th>Customer</th><th>Amount</th><th>Status</th><th>Action</th></tr></thead><tbody id="rows">${rows}</tbody></table><p id="status" role="status"></p></main>`,
    `document.getElementById('rows').addEventListener('click', async (e) => {
  const id = e.target.dataset?.id; if (!id) return
  await fetch('/api/ship', { method: 'POST', body: JSON.stringify({ id: Number(id) }) })
  e.target.replaceWith('Shipped'); document.getElementById('status').textContent = 'Order ' + id + ' shipped'
})`,
  )
}

const frameForm = (title, label, name, endpoint) =>
  page(
    title,
    `<form><h2>${title}</h2><label>${label} <input name="${name}"></label> <button>Save</button><p role="status"></p></form>`,
    `document.querySelector('form').onsubmit = async (e) => {
  e.preventDefault()
  await fetch('${endpoint}', { method: 'POST', body: JSON.stringify({ value: e.target.${name}.value }) })
  e.target.querySelector('[role=status]').textContent = 'Saved'
}`,
  )

function frames(crossOrigin) {
  return page(
    'Checkout',
    `${NAV}<main><h1>Checkout</h1><p>Enter the shipping name and the card number.</p>
<iframe title="Shipping" src="/frame/shipping" width="600" height="160"></iframe>
<iframe title="Payment" src="${crossOrigin}/frame/payment" width="600" height="160"></iframe></main>`,
  )
}

const PROJECTS = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta']
function spa() {
  return page(
    'Projects',
    `${NAV}<main id="app"><h1>Projects</h1><button id="load">Load projects</button></main>`,
    `document.getElementById('load').onclick = async () => {
  const app = document.getElementById('app')
  app.innerHTML = '<h1>Projects</h1><p>Loading…</p>'
  const list = await (await fetch('/api/projects')).json()
  app.innerHTML = '<h1>Projects</h1><ul></ul><p role="status"></p>'
  for (const p of list) {
    const li = document.createElement('li')
    li.innerHTML = '<span></span> <small></small> <button>Approve</button>'
    li.querySelector('span').textContent = p.name
    li.querySelector('small').textContent = p.owner
    li.querySelector('button').setAttribute('aria-label', 'Approve ' + p.name)
    li.querySelector('button').onclick = async () => {
      await fetch('/api/approve', { method: 'POST', body: JSON.stringify({ name: p.name }) })
      li.querySelector('button').replaceWith('Approved')
    }
    app.querySelector('ul').append(li)
  }
}`,
  )
}

function login() {
  return page(
    'Sign in',
    `${NAV}<main><h1>Sign in to your bank</h1><form method="post" action="/login"><p><label>Username <input name="user" autocomplete="username"></label></p><p><label>Password <input name="password" type="password"></label></p><button>Sign in</button></form></main>`,
  )
}

function account() {
  const rows = Array.from(
    { length: 8 },
    (_, i) =>
      `<tr><td>Nov ${20 - i}</td><td>${['Grocer', 'Rail', 'Books', 'Cafe'][i % 4]}</td><td>-${(i + 1) * 7}.50</td></tr>`,
  ).join('')
  return page(
    'Your account',
    `${NAV}<main><h1>Current account</h1><p>Balance: <strong>£2,417.30</strong></p><table><caption>Recent</caption>${rows}</table></main>`,
  )
}

function dialog() {
  return page(
    'Settings',
    `${NAV}<main><h1>Settings</h1><p>Danger zone</p><button id="del">Delete old drafts</button><p role="status"></p></main>`,
    `document.getElementById('del').onclick = async () => {
  if (!confirm('Delete 12 drafts?')) return
  await fetch('/api/delete', { method: 'POST', body: '{}' })
  document.querySelector('[role=status]').textContent = 'Drafts deleted'
}`,
  )
}

function search() {
  return page(
    'Catalogue',
    `${NAV}<main><h1>Catalogue</h1><form action="/results"><label>Search <input type="search" name="q"></label></form></main>`,
  )
}

const ITEMS = ['Brass telescope', 'Telescope tripod', 'Telescope lens cap', 'Star chart', 'Red torch']
function results(q) {
  const found = ITEMS.filter((t) => t.toLowerCase().includes(q.toLowerCase()))
  return page(
    `Results for ${q}`,
    `${NAV}<main><h1>${found.length} results</h1><ul>${found.map((t) => `<li><a href="/item/${encodeURIComponent(t)}">${t}</a></li>`).join('')}</ul></main>`,
  )
}

/** What every task expects; `check` reads the state the pages reported. */
export const EXPECTED = {
  article: (s) => s.answers.article === '1911',
  inbox: (s) => s.replies.some((r) => r.id === 2 && /approved/i.test(r.text)),
  form: (s) =>
    s.form !== undefined &&
    FORM_FIELDS.every(([, name, kind, value]) =>
      kind === 'checkbox' ? (s.form[name] === 'on') === value : s.form[name] === value,
    ),
  table: (s) => s.shipped.length === 1 && s.shipped[0] === 347,
  frames: (s) => s.shipping === 'Ada Lovelace' && s.payment === '4242424242424242',
  spa: (s) => s.approved.length === 1 && s.approved[0] === 'Beta',
  login: (s) => s.loggedIn && s.answers.login === '£2,417.30',
  dialog: (s) => s.deleted === 1,
  search: (s) => s.visited.includes('Telescope tripod'),
  mail: (s) => s.read.includes(2) && s.archived.length === 1 && s.archived[0] === 2,
}

function freshState() {
  return {
    answers: {},
    replies: [],
    shipped: [],
    approved: [],
    visited: [],
    deleted: 0,
    loggedIn: false,
    read: [],
    archived: [],
  }
}

const body = (req) =>
  new Promise((resolve) => {
    let data = ''
    req.on('data', (c) => (data += c))
    req.on('end', () => resolve(data))
  })

const delay = (ms) => new Promise((r) => setTimeout(r, ms))

/** Starts both servers; `url(path)` on the main origin, `check(task)` judges a task. */
export async function startAgentSite({ apiDelayMs = 300 } = {}) {
  let state = freshState()
  const clickable = createClickableApi()
  /** Long polls of the mail page's unread counter, answered when the state changes. */
  const unreadPolls = new Set()
  const unread = () => 12 - new Set(state.read).size
  const answerUnread = () => {
    for (const res of unreadPolls) res.end(JSON.stringify({ unread: unread() }))
    unreadPolls.clear()
  }
  const cross = createServer((req, res) => {
    if (req.url === '/frame/payment') {
      res.writeHead(200, { 'content-type': 'text/html' })
      return res.end(frameForm('Payment', 'Card number', 'card', '/api/pay'))
    }
    if (req.url === '/api/pay' && req.method === 'POST')
      return body(req).then((b) => {
        state.payment = JSON.parse(b).value
        res.end('{}')
      })
    res.writeHead(404).end()
  })
  await new Promise((r) => cross.listen(0, '127.0.0.1', r))
  // Another origin: the same address under the name localhost, on its own port.
  const crossOrigin = `http://localhost:${cross.address().port}`

  const main = createServer(async (req, res) => {
    if (clickable.handle(req, res)) return
    const url = new URL(req.url, 'http://x')
    const html = (text) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(text)
    }
    const json = (value) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(value))
    }
    const p = url.pathname
    if (req.method === 'POST') {
      const raw = await body(req)
      if (p.startsWith('/answer/')) {
        state.answers[p.slice(8)] = raw.trim()
        return json({ ok: true })
      }
      if (p === '/form') {
        state.form = Object.fromEntries(new URLSearchParams(raw))
        return html(page('Trial started', `<h1>Your trial has started</h1>`))
      }
      if (p === '/login') {
        const f = new URLSearchParams(raw)
        state.loggedIn = f.get('user') === 'ada' && f.get('password') === 'correct horse'
        res.writeHead(303, { location: state.loggedIn ? '/account' : '/login' })
        return res.end()
      }
      const data = raw ? JSON.parse(raw) : {}
      if (p === '/api/reply') state.replies.push(data)
      else if (p === '/api/ship') state.shipped.push(data.id)
      else if (p === '/api/approve') state.approved.push(data.name)
      else if (p === '/api/delete') state.deleted++
      else if (p === '/api/shipping') state.shipping = data.value
      else if (p === '/api/read') {
        state.read.push(data.id)
        json(MESSAGES[data.id - 1])
        return answerUnread()
      } else if (p === '/api/archive') {
        state.archived.push(data.id)
        json({ ok: true })
        return answerUnread()
      }
      return json({ ok: true })
    }
    if (p === '/api/unread') {
      res.writeHead(200, { 'content-type': 'application/json' })
      unreadPolls.add(res)
      res.on('close', () => unreadPolls.delete(res))
      return
    }
    if (p === '/api/projects') {
      await delay(apiDelayMs)
      return json(PROJECTS.map((name, i) => ({ name, owner: SENDERS[i % 5] })))
    }
    if (p.startsWith('/api/message/')) {
      await delay(apiDelayMs)
      return json(MESSAGES[Number(p.slice(13)) - 1])
    }
    if (p.startsWith('/item/')) {
      state.visited.push(decodeURIComponent(p.slice(6)))
      return html(page('Item', `<h1>${decodeURIComponent(p.slice(6))}</h1>`))
    }
    const pages = {
      '/article': article,
      '/inbox': inbox,
      '/mail': mail,
      '/form': form,
      '/table': table,
      '/frames': () => frames(crossOrigin),
      '/frame/shipping': () => frameForm('Shipping', 'Full name', 'name', '/api/shipping'),
      '/spa': spa,
      '/login': login,
      '/account': account,
      '/dialog': dialog,
      '/search': search,
      '/results': () => results(url.searchParams.get('q') ?? ''),
    }
    if (pages[p]) return html(pages[p]())
    if (p === '/favicon.ico') return res.writeHead(204).end()
    html(page('Elsewhere', `<h1>${p}</h1>`))
  })
  await new Promise((r) => main.listen(0, '127.0.0.1', r))
  const origin = `http://127.0.0.1:${main.address().port}`
  return {
    url: (path) => origin + path,
    reset() {
      state = freshState()
    },
    check: (task) => EXPECTED[task](state),
    /** What the clickable corpus page (`/clickable`) recorded of its clicks; `resetClicks()` forgets them. */
    clicked: () => clickable.clicked(),
    resetClicks: () => clickable.reset(),
    state: () => state,
    async close() {
      for (const res of unreadPolls) res.destroy()
      for (const server of [main, cross]) server.closeAllConnections()
      await Promise.all([new Promise((r) => main.close(r)), new Promise((r) => cross.close(r))])
    },
  }
}

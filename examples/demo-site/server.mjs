// The demo notes site: a tiny web app with a cookie login and a JSON API, so the whole bridge flow
// (plugin -> extension -> agent) can be tried without an account anywhere. It is also the fixture
// site of the end-to-end tests, so its API is a contract; change it only together with the tests.
//
// Start it:   node examples/demo-site/server.mjs   (prints the URL; --port <n> to choose the port, default 8787)
// In code:    const site = await startDemoSite({ port: 0 }); site.url; await site.close()
//
// Pages and API (all on 127.0.0.1; the session is the `demo_session` cookie, HttpOnly, SameSite=Lax):
//   GET  /                 HTML. Signed in: <main data-user="<name>"> with the notes; else a login form.
//   GET  /login            HTML login form. GET /login?user=<name> signs in at once and redirects to /.
//   POST /login            form or JSON { user }: signs in, sets the cookie, 303 to / (JSON: 200 { user }).
//   GET|POST /logout       clears the session, 303 to /.
//   GET  /api/me           200 { user } | 401 { error }
//   GET  /api/notes        200 { notes: [{ id, title, body, createdAt }] } newest last | 401
//   POST /api/notes        JSON { title (1-200 chars), body? } -> 201 { note } | 400 | 401 | 415 (not JSON)
//   DELETE /api/notes/:id  200 { ok: true } | 404 | 401
//   GET  /api/slow?ms=N    waits N ms (default 2000, max 10000), then 200 { waitedMs } | 401
//   GET  /api/status/:code answers with that status (400-599) and { error } | 401, for error-path demos
// User names: 1-32 characters of [a-zA-Z0-9_.-]. Notes live in memory, per user, per server.
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'

const COOKIE = 'demo_session'
const USER_PATTERN = /^[a-zA-Z0-9_.-]{1,32}$/

/**
 * Starts the demo site on 127.0.0.1.
 * @param {{ port?: number }} [options] port 0 picks a free port
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export async function startDemoSite({ port = 0 } = {}) {
  /** @type {Map<string, string>} session token -> user */
  const sessions = new Map()
  /** @type {Map<string, Array<{ id: number, title: string, body: string, createdAt: string }>>} */
  const notes = new Map()
  let nextId = 1

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'internal error' })
      else res.end()
    })
  })

  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const user = sessions.get(readCookie(req, COOKIE) ?? '')
    const path = url.pathname
    const method = req.method ?? 'GET'

    if (path === '/' && method === 'GET')
      return html(res, 200, user ? homePage(user, notes.get(user) ?? []) : loginPage())
    if (path === '/login' && method === 'GET') {
      const as = url.searchParams.get('user')
      if (as === null) return html(res, 200, loginPage())
      return signIn(res, as, false)
    }
    if (path === '/login' && method === 'POST') {
      const body = await readBody(req)
      const json = isJson(req)
      const name = json ? parseJson(body)?.user : new URLSearchParams(body).get('user')
      return signIn(res, name, json)
    }
    if (path === '/logout' && (method === 'GET' || method === 'POST')) {
      sessions.delete(readCookie(req, COOKIE) ?? '')
      res.writeHead(303, {
        location: '/',
        'set-cookie': `${COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
      })
      return res.end()
    }
    if (!path.startsWith('/api/')) return send(res, 404, { error: `no page at ${path}` })
    if (!user) return send(res, 401, { error: 'not signed in' })

    if (path === '/api/me' && method === 'GET') return send(res, 200, { user })
    if (path === '/api/notes' && method === 'GET') return send(res, 200, { notes: notes.get(user) ?? [] })
    if (path === '/api/notes' && method === 'POST') {
      if (!isJson(req)) return send(res, 415, { error: 'send JSON (content-type: application/json)' })
      const input = parseJson(await readBody(req))
      const title = typeof input?.title === 'string' ? input.title.trim() : ''
      if (title.length < 1 || title.length > 200)
        return send(res, 400, { error: 'title must be 1-200 characters' })
      const note = {
        id: nextId++,
        title,
        body: typeof input?.body === 'string' ? input.body : '',
        createdAt: new Date().toISOString(),
      }
      notes.set(user, [...(notes.get(user) ?? []), note])
      return send(res, 201, { note })
    }
    const del = /^\/api\/notes\/(\d+)$/.exec(path)
    if (del && method === 'DELETE') {
      const list = notes.get(user) ?? []
      const id = Number(del[1])
      if (!list.some((n) => n.id === id)) return send(res, 404, { error: `no note ${id}` })
      notes.set(
        user,
        list.filter((n) => n.id !== id),
      )
      return send(res, 200, { ok: true })
    }
    if (path === '/api/slow' && method === 'GET') {
      const ms = Math.min(Math.max(Number(url.searchParams.get('ms') ?? 2000) || 0, 0), 10_000)
      await new Promise((r) => setTimeout(r, ms))
      return send(res, 200, { waitedMs: ms })
    }
    const status = /^\/api\/status\/(\d{3})$/.exec(path)
    if (status && method === 'GET') {
      const code = Number(status[1])
      if (code >= 400 && code <= 599) return send(res, code, { error: `status ${code} as requested` })
    }
    return send(res, 404, { error: `no API at ${method} ${path}` })
  }

  function signIn(res, name, json) {
    if (typeof name !== 'string' || !USER_PATTERN.test(name))
      return json
        ? send(res, 400, { error: 'user must be 1-32 characters of a-z, 0-9, _ . -' })
        : html(res, 400, loginPage('Choose a user name of 1-32 letters, digits, _ . -'))
    const token = randomBytes(24).toString('hex')
    sessions.set(token, name)
    const cookie = `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax`
    if (json) {
      res.setHeader('set-cookie', cookie)
      return send(res, 200, { user: name })
    }
    res.writeHead(303, { location: '/', 'set-cookie': cookie })
    return res.end()
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(undefined))
  })
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function readCookie(req, name) {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

function isJson(req) {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')
}

function parseJson(text) {
  try {
    const value = JSON.parse(text)
    return typeof value === 'object' && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

async function readBody(req) {
  let size = 0
  const chunks = []
  for await (const chunk of req) {
    size += chunk.length
    if (size > 64 * 1024) throw new Error('body too large')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

function html(res, status, body) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
  res.end(body)
}

const escape = (text) =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  )

function layout(title, content) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}li{margin:.3rem 0}</style>
</head><body><h1>Demo Notes</h1>${content}</body></html>`
}

function loginPage(problem = '') {
  return layout(
    'Demo Notes: sign in',
    `<p id="signed-out">You are signed out.</p>${problem ? `<p role="alert">${escape(problem)}</p>` : ''}
<form method="post" action="/login"><label>User name <input name="user" value="alice" required></label>
<button type="submit">Sign in</button></form>`,
  )
}

function homePage(user, list) {
  const items = list
    .map((n) => `<li data-note-id="${n.id}"><strong>${escape(n.title)}</strong> ${escape(n.body)}</li>`)
    .join('')
  return layout(
    'Demo Notes',
    `<main data-user="${escape(user)}"><p>Signed in as <strong id="user">${escape(user)}</strong>.
<a href="/logout">Sign out</a></p><h2>Your notes</h2><ul id="notes">${items || '<li id="no-notes">No notes yet.</li>'}</ul></main>`,
  )
}

// CLI mode: `node examples/demo-site/server.mjs [--port <n>]`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const flag = process.argv.indexOf('--port')
  const given = flag > 0 ? (process.argv[flag + 1] ?? '') : (process.env.PORT ?? '8787')
  // bridge's port rule (src/config/port.ts), which this plain script cannot import: digits only,
  // 0-65535, 0 for a free port; `1e3` or `0x50` are refused, not read as numbers.
  if (!/^\d{1,5}$/.test(given) || Number(given) > 65535) {
    const shown = JSON.stringify(given.length > 40 ? `${given.slice(0, 40)}…` : given)
    process.stderr.write(`demo site: invalid port ${shown} (expected 0-65535; 0 picks a free port)\n`)
    process.exit(1)
  }
  const site = await startDemoSite({ port: Number(given) })
  console.log(`demo notes site on ${site.url} (sign in at ${site.url}/login?user=alice); Ctrl-C to stop`)
  const stop = () => void site.close().then(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

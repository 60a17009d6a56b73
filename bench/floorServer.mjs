// The floor: the least a server must do for the same client and the same scripted extension. node:http
// + ws, speaking just enough MCP for the SDK client (initialize, tools/list, tools/call answered as JSON
// after one WebSocket round trip to the extension on /ws). No validation, permissions, audit or state
// machines: whatever bridge spends above this is its own cost.
//
//   PORT=<n> BENCH_SECRET=<s> BENCH_TOOLS=<tools.json> node bench/floorServer.mjs
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { WebSocketServer } from 'ws'

const secret = process.env.BENCH_SECRET ?? ''
const toolsJson = process.env.BENCH_TOOLS ? readFileSync(process.env.BENCH_TOOLS, 'utf8') : '[]'
const listResult = `{"tools":${toolsJson}}`
const sessions = new Set()
const pending = new Map()
let extension
let nextId = 1

const wss = new WebSocketServer({ noServer: true, maxPayload: 10 * 1024 * 1024, perMessageDeflate: false })
wss.on('connection', (ws) => {
  extension = ws
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString('utf8'))
    const done = pending.get(m.id)
    if (!done) return
    pending.delete(m.id)
    done(m.result)
  })
})

const server = createServer((req, res) => {
  if (req.url === '/health') return json(res, 200, '{"status":"ok"}')
  if (req.url !== '/mcp') return json(res, 404, '{}')
  if (req.headers.authorization !== `Bearer ${secret}`) return json(res, 401, '{}')
  if (req.method === 'GET') return json(res, 405, '{}')
  if (req.method === 'DELETE') {
    sessions.delete(req.headers['mcp-session-id'])
    return json(res, 200, '{}')
  }
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => answer(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8'))))
})

function answer(req, res, message) {
  if (message.id === undefined) return json(res, 202, '')
  if (message.method === 'initialize') {
    const id = randomUUID()
    sessions.add(id)
    const result = {
      protocolVersion: message.params.protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 'floor', version: '1.0.0' },
    }
    return json(res, 200, reply(message.id, JSON.stringify(result)), { 'mcp-session-id': id })
  }
  if (!sessions.has(req.headers['mcp-session-id'])) return json(res, 404, '{}')
  if (message.method === 'tools/list') return json(res, 200, reply(message.id, listResult))
  if (message.method === 'tools/call') {
    const [plugin, ...rest] = message.params.name.split('_')
    const id = nextId++
    pending.set(id, (result) => {
      const content = [{ type: 'text', text: JSON.stringify(result.output) }]
      json(res, 200, reply(message.id, JSON.stringify({ content })))
    })
    const params = { dispatchId: String(id), plugin, tool: rest.join('_'), input: message.params.arguments }
    extension.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tool.dispatch', params }))
    return
  }
  json(res, 200, reply(message.id, '{}'))
}

function reply(id, resultJson) {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`
}

function json(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(body)
}

server.on('upgrade', (req, socket, head) => {
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
  if (offered[0] !== 'bridge' || offered[1] !== secret) return socket.destroy()
  wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`floor listening on http://127.0.0.1:${server.address().port}`)
})
process.on('SIGTERM', () => process.exit(0))

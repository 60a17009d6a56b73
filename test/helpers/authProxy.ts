/**
 * A loopback HTTP proxy in front of a test daemon that adds `Authorization: Bearer <token>` to every
 * request, for MCP tools that send no credential (the conformance suite). Everything else passes as
 * sent, including a hostile Host or Origin: a Host naming the proxy itself is rewritten to name the
 * daemon (same host name, the daemon's port), any other Host is kept so the daemon's gate judges it.
 *
 * @example
 *   const proxy = await startAuthProxy(daemon.url, token)
 *   // point the tool at `${proxy.url}/mcp`
 *   await proxy.stop()
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface AuthProxy {
  url: string
  stop(): Promise<void>
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]']

export async function startAuthProxy(target: string, token: string): Promise<AuthProxy> {
  const upstream = new URL(target)
  let ownPort = 0
  const hostFor = (host: string | undefined): string => {
    if (host === undefined) return upstream.host
    const match = /^(.*):(\d+)$/.exec(host)
    if (match && Number(match[2]) === ownPort && LOOPBACK_NAMES.includes(match[1] ?? ''))
      return `${match[1]}:${upstream.port}`
    return host
  }
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers, host: hostFor(req.headers.host) }
    headers.authorization = `Bearer ${token}`
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    // The client hung up (an event stream it is done with): close the daemon side too.
    res.on('close', () => out.destroy())
    req.pipe(out)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  ownPort = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${ownPort}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

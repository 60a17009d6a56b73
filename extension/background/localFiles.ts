/**
 * The two files `bridge start` writes beside the extension's code in `<config>/extension/`:
 * `auth.json` = `{ "secret": "<64 hex>" }` (the source of truth for the secret) and
 * `server.json` = `{ "port": <n> }`. Both are re-read before every connection attempt, so a rotated
 * secret or a new port is picked up without reloading the extension.
 */
import { DEFAULT_PORT, SECRET_HEX_LENGTH } from '../../src/protocol/constants'

export interface DaemonAddress {
  port: number
  secret: string | null
}

async function readJson(name: string): Promise<unknown> {
  try {
    const res = await fetch(chrome.runtime.getURL(name), { cache: 'no-store' })
    if (!res.ok) return undefined
    return (await res.json()) as unknown
  } catch {
    return undefined
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

export async function readDaemonAddress(): Promise<DaemonAddress> {
  const [server, auth] = await Promise.all([readJson('server.json'), readJson('auth.json')])
  const port =
    isRecord(server) &&
    Number.isInteger(server.port) &&
    (server.port as number) > 0 &&
    (server.port as number) < 65536
      ? (server.port as number)
      : DEFAULT_PORT
  const secret =
    isRecord(auth) &&
    typeof auth.secret === 'string' &&
    new RegExp(`^[0-9a-f]{${SECRET_HEX_LENGTH}}$`, 'i').test(auth.secret)
      ? auth.secret
      : null
  return { port, secret }
}

export const daemonBaseUrl = (port: number): string => `http://127.0.0.1:${port}`

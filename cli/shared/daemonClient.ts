/**
 * Talking to a running daemon from the CLI: the secret from auth.json, and /health with a timeout.
 */
import { existsSync } from 'node:fs'
import { readSecret } from '../../src/config/auth'
import type { BridgePaths } from '../../src/config/paths'
import type { HealthPayload } from '../../src/http/health'
import { LOOPBACK_HOST } from '../../src/protocol/constants'

export type HealthResult =
  | { ok: true; health: HealthPayload }
  | { ok: false; reason: 'not_running' | 'unauthorized' | 'error'; message: string }

/** The secret, or null when auth.json does not exist yet. Throws on a broken file. */
export function cliSecret(paths: BridgePaths): string | null {
  return existsSync(paths.authFile) ? readSecret(paths.authFile) : null
}

export function baseUrl(port: number): string {
  return `http://${LOOPBACK_HOST}:${port}`
}

export async function fetchHealth(
  port: number,
  secret: string | null,
  timeoutMs = 3_000,
): Promise<HealthResult> {
  let res: Response
  try {
    res = await fetch(`${baseUrl(port)}/health`, {
      headers: secret ? { authorization: `Bearer ${secret}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch {
    return { ok: false, reason: 'not_running', message: `no bridge daemon answers on ${baseUrl(port)}` }
  }
  if (res.status !== 200)
    return { ok: false, reason: 'error', message: `${baseUrl(port)}/health answered HTTP ${res.status}` }
  const body = (await res.json().catch(() => null)) as Partial<HealthPayload> | null
  if (!body || body.status !== 'ok')
    return {
      ok: false,
      reason: 'error',
      message: `${baseUrl(port)}/health did not answer like a bridge daemon`,
    }
  if (body.version === undefined)
    return {
      ok: false,
      reason: 'unauthorized',
      message: `the daemon on ${baseUrl(port)} did not accept the secret in auth.json (was it started with another config directory?)`,
    }
  return { ok: true, health: body as HealthPayload }
}

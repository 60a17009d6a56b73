/**
 * After a build: ask a running daemon to rediscover plugins (`POST /reload` with the secret from
 * auth.json), then read /health to tell the author whether their plugin loaded. No daemon is not an
 * error: it discovers the plugin when it starts. A daemon in dev mode is left alone: it watches the
 * build output and reloads by itself.
 */
import { existsSync } from 'node:fs'
import { readSecret } from '../config/auth'
import { bridgePaths } from '../config/paths'
import { LOOPBACK_HOST } from '../protocol/constants'

export type ReloadOutcome =
  | { kind: 'reloaded'; plugins: number; durationMs: number; loaded: boolean; failure?: string }
  | { kind: 'no-daemon'; port: number }
  /** A dev-mode daemon watches local plugin builds itself (and rate-limits POST /reload). */
  | { kind: 'dev-mode'; port: number }
  | { kind: 'refused'; port: number; status: number; message: string }

const RELOAD_TIMEOUT_MS = 15_000

export async function requestReload(opts: {
  configDir: string
  port: number
  pluginName: string
  pluginDir: string
}): Promise<ReloadOutcome> {
  const { authFile } = bridgePaths(opts.configDir)
  const headers: Record<string, string> = {}
  if (existsSync(authFile)) headers.authorization = `Bearer ${readSecret(authFile)}`
  const base = `http://${LOOPBACK_HOST}:${opts.port}`

  try {
    const health = await fetch(`${base}/health`, { headers, signal: AbortSignal.timeout(RELOAD_TIMEOUT_MS) })
    const body = (await health.json().catch(() => ({}))) as { mode?: unknown }
    if (health.ok && body.mode === 'dev') return { kind: 'dev-mode', port: opts.port }
  } catch {
    return { kind: 'no-daemon', port: opts.port }
  }
  let response: Response
  try {
    response = await fetch(`${base}/reload`, {
      method: 'POST',
      headers,
      signal: AbortSignal.timeout(RELOAD_TIMEOUT_MS),
    })
  } catch {
    return { kind: 'no-daemon', port: opts.port }
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (!response.ok) {
    const error = body.error as { message?: unknown } | undefined
    const message = typeof error?.message === 'string' ? error.message : response.statusText
    return { kind: 'refused', port: opts.port, status: response.status, message }
  }
  const outcome: ReloadOutcome = {
    kind: 'reloaded',
    plugins: typeof body.plugins === 'number' ? body.plugins : 0,
    durationMs: typeof body.durationMs === 'number' ? body.durationMs : 0,
    loaded: false,
  }
  try {
    const health = (await (
      await fetch(`${base}/health`, { headers, signal: AbortSignal.timeout(RELOAD_TIMEOUT_MS) })
    ).json()) as { pluginDetails?: { name: string }[]; failedPlugins?: { path: string; error: string }[] }
    outcome.loaded = health.pluginDetails?.some((p) => p.name === opts.pluginName) ?? false
    const failed = health.failedPlugins?.find((f) => f.path === opts.pluginDir)
    if (failed) outcome.failure = failed.error
  } catch {
    // The reload itself succeeded; the health details are only a courtesy.
  }
  return outcome
}

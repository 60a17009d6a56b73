/**
 * After a build: ask a running daemon to rediscover plugins (`POST /reload` with the secret from
 * auth.json, sent only once the daemon proved it knows it: src/http/daemonClient.ts), then read /health to tell the author whether their plugin loaded. No daemon is not an
 * error: it discovers the plugin when it starts. A daemon in dev mode is left alone: it watches the
 * build output and reloads by itself.
 */
import { daemonFetch, type DaemonProblem } from '../http/daemonClient'

export type ReloadOutcome =
  | { kind: 'reloaded'; plugins: number; durationMs: number; loaded: boolean; failure?: string }
  | { kind: 'no-daemon'; port: number }
  /** A dev-mode daemon watches local plugin builds itself (and rate-limits POST /reload). */
  | { kind: 'dev-mode'; port: number }
  | { kind: 'refused'; port: number; status: number; message: string }
  /** Something that is not this bridge daemon listens on the port: nothing was sent to it. */
  | { kind: 'impostor'; port: number; message: string }

const RELOAD_TIMEOUT_MS = 15_000

export async function requestReload(opts: {
  port: number
  /** From auth.json (the caller reads it: src/config/auth.ts); null when there is none. */
  secret: string | null
  pluginName: string
  pluginDir: string
}): Promise<ReloadOutcome> {
  const { secret } = opts
  const problem = (p: DaemonProblem): ReloadOutcome =>
    p.reason === 'impostor'
      ? { kind: 'impostor', port: opts.port, message: p.message }
      : p.reason === 'busy'
        ? { kind: 'refused', port: opts.port, status: 429, message: p.message }
        : { kind: 'no-daemon', port: opts.port }

  const health = await daemonFetch(opts.port, secret, '/health', { timeoutMs: RELOAD_TIMEOUT_MS })
  if (!health.ok) return problem(health)
  const mode = ((await health.response.json().catch(() => ({}))) as { mode?: unknown }).mode
  if (health.response.ok && mode === 'dev') return { kind: 'dev-mode', port: opts.port }
  const reload = await daemonFetch(opts.port, secret, '/reload', {
    method: 'POST',
    timeoutMs: RELOAD_TIMEOUT_MS,
  })
  if (!reload.ok) return problem(reload)
  const response = reload.response
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
    const after = await daemonFetch(opts.port, secret, '/health', { timeoutMs: RELOAD_TIMEOUT_MS })
    if (!after.ok) return outcome
    const health = (await after.response.json()) as {
      pluginDetails?: { name: string }[]
      failedPlugins?: { path: string; error: string }[]
    }
    outcome.loaded = health.pluginDetails?.some((p) => p.name === opts.pluginName) ?? false
    const failed = health.failedPlugins?.find((f) => f.path === opts.pluginDir)
    if (failed) outcome.failure = failed.error
  } catch {
    // The reload itself succeeded; the health details are only a courtesy.
  }
  return outcome
}

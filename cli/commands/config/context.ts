/**
 * What every `bridge config` subcommand starts from: the paths, the port a running daemon would use,
 * the secret, and a way to ask that daemon to re-read its files (`POST /reload`).
 */
import type { HealthPayload } from '../../../src/http/health'
import { baseUrl, daemonFetch, fetchHealth } from '../../../src/http/daemonClient'
import { say, warn } from '../../shared/output'
import { daemonTarget, runningDaemonTarget, type DaemonTarget } from '../../shared/daemonTarget'

export interface ConfigFlags {
  port?: unknown
  json?: boolean
  showSecret?: boolean
  force?: boolean
  confirm?: boolean
}

export type ConfigContext = DaemonTarget

/** Throws when the port flag is invalid or auth.json is broken. A broken config.json only loses its port. */
export function configContext(flags: ConfigFlags): ConfigContext {
  return daemonTarget(flags.port, { brokenConfig: 'ignore' })
}

/** `configContext`, but without `--port` the port of the daemon that holds the config folder's lock. */
export function runningConfigContext(flags: ConfigFlags): Promise<ConfigContext> {
  return runningDaemonTarget(flags.port, { brokenConfig: 'ignore' })
}

/** The running daemon's full /health, or null when none answers with this secret. */
export async function runningDaemon(context: ConfigContext): Promise<HealthPayload | null> {
  if (context.secret === null) return null
  const health = await fetchHealth(context.port, context.secret, 2_000)
  return health.ok ? health.health : null
}

export type ReloadOutcome = { ok: true } | { ok: false; message: string }

/**
 * `POST /reload` with `secret`, once the daemon proved it knows that secret: the daemon re-reads
 * config.json, auth.json and clients.json and rediscovers plugins.
 */
export async function requestReload(port: number, secret: string): Promise<ReloadOutcome> {
  const result = await daemonFetch(port, secret, '/reload', { method: 'POST', timeoutMs: 30_000 })
  if (!result.ok) return { ok: false, message: result.message }
  const res = result.response
  if (res.status === 429)
    return {
      ok: false,
      message: 'the daemon refused the reload (more than 10 reloads a minute); try again shortly',
    }
  if (res.status !== 200) return { ok: false, message: `${baseUrl(port)}/reload answered HTTP ${res.status}` }
  const body = (await res.json().catch(() => null)) as { ok?: boolean } | null
  if (body?.ok !== true)
    return { ok: false, message: `the daemon could not re-read its configuration (see \`bridge logs\`)` }
  return { ok: true }
}

/**
 * After config.json was written: a running daemon (`daemon`, from `runningDaemon`) is asked to re-read
 * it, and the user is told whether it did; without one there is nothing to tell.
 */
export async function rereadByDaemon(context: ConfigContext, daemon: HealthPayload | null): Promise<void> {
  if (daemon === null || context.secret === null) return
  const reloaded = await requestReload(context.port, context.secret)
  if (reloaded.ok) say('the running daemon re-read config.json')
  else
    warn(
      `the running daemon did not re-read config.json: ${reloaded.message}; it will on its next reload or restart`,
    )
}

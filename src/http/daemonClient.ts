/**
 * Talking to a running daemon from the CLI and from plugin authoring (`bridge-plugin build`). The one rule: the secret
 * from auth.json is sent only to a server that first proved it knows it. `daemonFetch` asks
 * `GET /proof?nonce=<fresh random>` (no token), checks the HMAC, and only then sends
 * `Authorization: Bearer <secret>`; a program squatting on the port gets the nonce and nothing else.
 *
 * @example
 *   const res = await daemonFetch(9515, secret, '/audit?limit=5')
 *   if (!res.ok) fail(res.message)   // 'not_running', 'busy' or 'impostor', with a message for the user
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { HealthPayload } from './health'
import { LOOPBACK_HOST, PROOF_CALLER_CONTEXT, PROOF_CONTEXT, PROOF_PATH } from '../protocol/constants'

/**
 * `busy`: the server answered 429 to the proof request. Not a verdict on who it is: nothing was sent,
 * and the same command may succeed in a minute.
 */
export type DaemonProblem = { ok: false; reason: 'not_running' | 'impostor' | 'busy'; message: string }

export type HealthResult =
  | { ok: true; health: HealthPayload }
  | { ok: false; reason: 'not_running' | 'impostor' | 'busy' | 'unauthorized' | 'error'; message: string }

export function baseUrl(port: number): string {
  return `http://${LOOPBACK_HOST}:${port}`
}

/**
 * Runs `work` with a deadline whose timer holds the process open. `AbortSignal.timeout` does not (its
 * timer is unref'd): a request whose server died at the wrong moment (kill -9 mid-answer) could leave
 * `fetch` pending with no socket, and the CLI would end silently with exit code 13 (an unsettled
 * top-level await) instead of saying the daemon did not answer. Past the deadline this rejects
 * whether or not `work` ever settles.
 */
export function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${ms} ms`)
      controller.abort(error)
      reject(error)
    }, ms)
  })
  return Promise.race([work(controller.signal), expired]).finally(() => clearTimeout(timer))
}

/** Statuses whose responses carry no body (a Response cannot be built with one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304])

/** The message for a server that could not prove it knows the secret. */
export function impostorMessage(port: number, detail?: string): string {
  return (
    `something else is listening on ${LOOPBACK_HOST}:${port}: it does not know bridge's secret, so nothing ` +
    `was sent to it${detail ? ` (${detail})` : ''}. If it is a bridge daemon started with another ` +
    `BRIDGE_CONFIG_DIR, use that directory; otherwise stop that program or choose another port (--port).`
  )
}

/** The message for a proof request answered with 429: busy, not a stranger. */
export function busyMessage(port: number): string {
  return (
    `the server on ${LOOPBACK_HOST}:${port} is busy: it answered "too many requests" when asked to prove ` +
    `it is bridge's daemon, so nothing was sent to it. Try again in a minute; if it stays busy, another ` +
    `program on this machine may be flooding it (\`bridge doctor\`).`
  )
}

/**
 * Checks that the server on `port` knows `secret`, with a fresh nonce. Sends no credential: `caller`
 * is an HMAC of this nonce under the secret (another context than the proof's), so the daemon does not
 * count us among the callers that lack the secret, and a stranger on the port can do nothing with it.
 * `not_running` when nothing answers; `busy` on 429; `impostor` for any other answer but the right HMAC.
 */
export async function proveDaemon(
  port: number,
  secret: string,
  timeoutMs = 3_000,
): Promise<{ ok: true } | DaemonProblem> {
  const nonce = randomBytes(32).toString('hex')
  let res: { status: number; body: { proof?: unknown } | null }
  try {
    res = await withDeadline(timeoutMs, async (signal) => {
      const caller = createHmac('sha256', secret).update(`${PROOF_CALLER_CONTEXT}${nonce}`).digest('hex')
      const answer = await fetch(`${baseUrl(port)}${PROOF_PATH}?nonce=${nonce}&caller=${caller}`, {
        signal,
        redirect: 'manual',
      })
      return {
        status: answer.status,
        body: (await answer.json().catch(() => null)) as { proof?: unknown } | null,
      }
    })
  } catch {
    return { ok: false, reason: 'not_running', message: `no bridge daemon answers on ${baseUrl(port)}` }
  }
  const body = res.body
  if (res.status === 429) return { ok: false, reason: 'busy', message: busyMessage(port) }
  const expected = createHmac('sha256', secret).update(`${PROOF_CONTEXT}${nonce}`).digest()
  const given = typeof body?.proof === 'string' && /^[0-9a-f]{64}$/.test(body.proof) ? body.proof : null
  if (res.status !== 200 || given === null || !timingSafeEqual(Buffer.from(given, 'hex'), expected))
    return { ok: false, reason: 'impostor', message: impostorMessage(port) }
  return { ok: true }
}

/**
 * fetch with the Bearer secret, after the proof. Without a secret (no auth.json yet) nothing secret can
 * leak, so the request goes out as it is. Network failures of the request itself are `not_running`.
 */
export async function daemonFetch(
  port: number,
  secret: string | null,
  path: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<{ ok: true; response: Response } | DaemonProblem> {
  const { timeoutMs = 10_000, ...rest } = init
  const headers = new Headers(rest.headers)
  if (secret !== null) {
    const proven = await proveDaemon(port, secret, Math.min(timeoutMs, 3_000))
    if (!proven.ok) return proven
    headers.set('authorization', `Bearer ${secret}`)
  }
  try {
    // The whole answer is read within the deadline (the daemon's answers are small JSON).
    const response = await withDeadline(timeoutMs, async (deadline) => {
      const answer = await fetch(`${baseUrl(port)}${path}`, {
        ...rest,
        headers,
        redirect: 'manual',
        signal: rest.signal ? AbortSignal.any([rest.signal, deadline]) : deadline,
      })
      const body = NULL_BODY_STATUSES.has(answer.status) ? null : await answer.arrayBuffer()
      return new Response(body, {
        status: answer.status,
        statusText: answer.statusText,
        headers: answer.headers,
      })
    })
    return { ok: true, response }
  } catch {
    return { ok: false, reason: 'not_running', message: `no answer from ${baseUrl(port)}${path}` }
  }
}

export async function fetchHealth(
  port: number,
  secret: string | null,
  timeoutMs = 3_000,
): Promise<HealthResult> {
  const result = await daemonFetch(port, secret, '/health', { timeoutMs })
  if (!result.ok)
    return result.reason === 'not_running'
      ? { ok: false, reason: 'not_running', message: `no bridge daemon answers on ${baseUrl(port)}` }
      : result
  const res = result.response
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

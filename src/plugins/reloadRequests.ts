/**
 * Asking the `reload` actor for a plugin reload, and `POST /reload`, which does just that. A request
 * resolves with the first run that started after it (requests during a run coalesce into one more).
 */
import type { ReloadFinished, ReloadReason } from '../../machines/reloadMachine'
import { reloadOf, type SystemLookup } from '../../machines/systemActors'
import { createRateLimiter } from '../http/rateLimit'
import { errorResponse, jsonResponse } from '../http/responses'
import type { Route } from '../http/route'
import { ADMIN_RATE_LIMIT_PER_MIN } from '../protocol/constants'
import type { ReloadStats } from './pluginHost'

/** Requests a reload and resolves when a run that started after this request has finished. */
export function requestReload(
  system: SystemLookup,
  reason: ReloadReason = 'request',
): Promise<ReloadFinished> {
  const actor = reloadOf(system)
  if (!actor) return Promise.reject(new Error('the reload actor is not running'))
  // Served by the first run numbered after every run started before this request.
  const target = actor.getSnapshot().context.runsStarted + 1
  return new Promise((resolve) => {
    const subscription = actor.on('reload.finished', (event) => {
      if (event.run < target) return
      subscription.unsubscribe()
      resolve(event)
    })
    actor.send({ type: 'reload.request', reason })
  })
}

/** The reload actor's counters for /health (zeros before the first run). */
export function reloadStats(system: SystemLookup): ReloadStats {
  const context = reloadOf(system)?.getSnapshot().context
  return {
    reloadCount: context?.reloadCount ?? 0,
    lastReloadTimestamp: context?.lastReloadTimestamp ?? 0,
    lastReloadDurationMs: context?.lastReloadDurationMs ?? 0,
  }
}

/** `POST /reload`: authenticated, 10 per minute, `{ ok, plugins, durationMs }`. */
export function reloadRoute(system: SystemLookup): Route {
  return {
    path: '/reload',
    auth: 'required',
    rateLimit: createRateLimiter({ limit: ADMIN_RATE_LIMIT_PER_MIN }),
    methods: {
      POST: async () => {
        if (!reloadOf(system)) return errorResponse('service_unavailable', 'the daemon is still starting')
        const result = await requestReload(system, 'request')
        return jsonResponse({ ok: result.ok, plugins: result.plugins, durationMs: result.durationMs })
      },
    },
  }
}

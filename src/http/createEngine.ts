/**
 * Picks the HTTP engine: BRIDGE_HTTP_ENGINE=node (the default), uws, or auto (uws when it loads,
 * else node). Forcing uws when it cannot load is an error, never a silent fallback.
 */
import { BridgeError, BridgeErrorCode } from '../errors'
import { log } from '../log'
import { HTTP_MAX_BODY_BYTES, WS_MAX_PAYLOAD_BYTES } from '../protocol/constants'
import type { EngineOptions, HttpEngine } from './engine'
import { createNodeEngine } from './nodeEngine'
import { createUwsEngine, loadUws } from './uwsEngine'

export type EngineChoice = 'auto' | 'node' | 'uws'

export function engineChoiceFromEnv(env: NodeJS.ProcessEnv = process.env): EngineChoice {
  const value = (env.BRIDGE_HTTP_ENGINE ?? 'node').toLowerCase()
  if (value === 'auto' || value === 'node' || value === 'uws') return value
  throw new BridgeError(
    BridgeErrorCode.engineUnavailable,
    `BRIDGE_HTTP_ENGINE must be auto, node or uws (got "${value}")`,
  )
}

export function createEngine(choice: EngineChoice, options: EngineOptions): HttpEngine {
  if (choice === 'node') return createNodeEngine(options)
  if (choice === 'uws') return createUwsEngine(options)
  const loaded = loadUws()
  if (loaded.ok) return createUwsEngine(options)
  log.withTag('http').debug(`${loaded.message}; using the node engine`)
  return createNodeEngine(options)
}

/** The daemon's limits on each engine: body and frame sizes, slow clients, open connections. */
export const DAEMON_ENGINE_LIMITS: EngineOptions['limits'] = {
  maxBodyBytes: HTTP_MAX_BODY_BYTES,
  maxPayloadBytes: WS_MAX_PAYLOAD_BYTES,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 256,
}

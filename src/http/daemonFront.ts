/**
 * The daemon's front: its routes behind the security gate, on one HTTP engine, refused with
 * service_unavailable once the daemon stops accepting (draining).
 */
import { HTTP_MAX_BODY_BYTES, LOOPBACK_HOST } from '../protocol/constants'
import { createEngine, DAEMON_ENGINE_LIMITS, type EngineChoice } from './createEngine'
import type { HttpEngine } from './engine'
import { createFront, createRoutes, type FrontOptions, type Services } from './front'
import { proofRoute, type ExtensionSightings } from './proof'
import type { Route } from './route'

export interface DaemonFrontParts {
  /** What the routes answer with; the /ws URL is built here from the bound port. */
  services: Omit<Services, 'wsUrl'>
  /** Routes owned elsewhere (plugin reloads). */
  routes: readonly Route[]
  /** Who may connect: the secret and the named MCP clients, as they are now. */
  credentials: { secret(): string | null; clients: NonNullable<FrontOptions['clients']> }
  engine: EngineChoice
  /** False once draining starts. */
  accepting: () => boolean
  /** Filled by /proof: when the extension last asked, with this secret or another (./proof). */
  extensionSightings: ExtensionSightings
}

export interface DaemonFront {
  readonly engine: HttpEngine
  /** Binds 127.0.0.1:`port` (0: a free port) and resolves with the bound port. */
  listen(port: number): Promise<number>
}

export function createDaemonFront(parts: DaemonFrontParts): DaemonFront {
  const { credentials } = parts
  const secret = () => credentials.secret()
  let port = 0
  const front = createFront({
    routes: [
      ...createRoutes({ ...parts.services, wsUrl: () => `ws://${LOOPBACK_HOST}:${port}/ws` }),
      ...parts.routes,
      proofRoute(secret, Date.now, parts.extensionSightings),
    ],
    port: () => port,
    secret,
    clients: () => credentials.clients(),
    maxBodyBytes: HTTP_MAX_BODY_BYTES,
    accepting: parts.accepting,
  })
  const engine = createEngine(parts.engine, {
    handler: front.handle,
    upgrade: front.upgrade,
    limits: DAEMON_ENGINE_LIMITS,
  })
  return {
    engine,
    async listen(requested) {
      port = (await engine.start({ host: LOOPBACK_HOST, port: requested })).port
      return port
    },
  }
}

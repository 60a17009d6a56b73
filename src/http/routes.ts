/**
 * The daemon's route table. Each endpoint is one entry built from `services`, the live objects the
 * daemon hands in; to add an endpoint, add a service and an entry here.
 */
import type { EngineSocket } from './engine'
import { healthRoute, type HealthPayload } from './health'
import { jsonResponse } from './responses'
import type { Route } from './route'

export interface Services {
  /** The full health payload (see health.ts); composed in daemon.ts. */
  getHealth(): HealthPayload
  /** `ws://127.0.0.1:<port>/ws`, built from the bound address, never from a request's Host. */
  wsUrl(): string
  /** An authenticated extension socket on `/ws` (the gate and the subprotocol check already passed). */
  openExtensionSocket(socket: EngineSocket): void
}

export function createRoutes(services: Services): Route[] {
  return [
    healthRoute(() => services.getHealth()),
    {
      path: '/ws-info',
      auth: 'required',
      methods: { GET: () => jsonResponse({ wsUrl: services.wsUrl() }) },
    },
    {
      path: '/ws',
      auth: 'required',
      upgrade: () => ({ onOpen: (socket) => services.openExtensionSocket(socket) }),
    },
  ]
}

/**
 * The extension's open /ws sockets, and what the actors do with them: the `extensionConnection`
 * actor's effects (send `sync.full` and `pong`, close a socket) and the port a call uses to reach the
 * active extension. Which socket is active is the actor's to decide: the port reads it from the
 * `system` XState hands the effect, so this table is built before the actor system and never
 * attached to it.
 */
import type { extensionConnectionMachine } from '../../machines/extensionConnectionMachine'
import { extensionConnectionOf, type SystemLookup } from '../../machines/systemActors'
import type { EngineSocket } from '../http/engine'
import { log } from '../log'
import type { ExtensionPort } from '../calls/extensionPort'
import type { NotificationParams, ServerNotifications } from '../protocol'
import type { DaemonPeer } from './daemonPeer'

const logger = log.withTag('ws')

/** The port a call reaches the extension through, declared where it is used (src/calls). */
export type { ExtensionPort } from '../calls/extensionPort'

export interface OpenSocket {
  socket: EngineSocket
  peer: DaemonPeer
}

type ConnectionEffects = Parameters<typeof extensionConnectionMachine.provide>[0]

export interface ExtensionSocketsDeps {
  /** The `sync.full` payload for a new connection. */
  syncFull(): NotificationParams<typeof ServerNotifications, 'sync.full'>
  /** Keepalive timeout (ms) for a silent socket; default the machine's own. */
  limits?: { keepaliveTimeoutMs: number }
}

export class ExtensionSockets {
  private readonly open = new Map<string, OpenSocket>()
  private stoppedAt: number | undefined
  /** The socket effects of the extensionConnection actor, for `.provide()`. */
  readonly connectionEffects: ConnectionEffects

  constructor(deps: ExtensionSocketsDeps) {
    this.connectionEffects = {
      actions: {
        sendSyncFull: (_, { connectionId }) =>
          void this.open.get(connectionId)?.peer.notify('sync.full', deps.syncFull()),
        sendPong: (_, { connectionId, ts }) => void this.open.get(connectionId)?.peer.notify('pong', { ts }),
        closeSocket: (_, { connectionId, code, reason }) => {
          const open = this.open.get(connectionId)
          if (!open) return
          logger.info(`closing extension connection (${reason})`)
          open.peer.close(reason)
          try {
            open.socket.close(code, reason)
          } catch (error) {
            logger.warn('closing the extension socket failed:', error)
          }
        },
      },
      ...(deps.limits === undefined ? {} : { delays: { keepaliveTimeout: deps.limits.keepaliveTimeoutMs } }),
    }
  }

  get stopped(): boolean {
    return this.stoppedAt !== undefined
  }

  /** Open extension sockets (the active one, plus a replaced one that is still closing). */
  get count(): number {
    return this.open.size
  }

  add(connectionId: string, socket: OpenSocket): void {
    this.open.set(connectionId, socket)
  }

  remove(connectionId: string): void {
    this.open.delete(connectionId)
  }

  /** Each actor system's port (a call's effects ask for it several times per call). */
  private readonly ports = new WeakMap<SystemLookup, ExtensionPort>()

  /** The active extension as a call reaches it, in the actor system `system`. */
  portOf(system: SystemLookup): ExtensionPort {
    let port = this.ports.get(system)
    if (!port) this.ports.set(system, (port = this.createPort(system)))
    return port
  }

  private createPort(system: SystemLookup): ExtensionPort {
    const active = (): OpenSocket | undefined => {
      const id = extensionConnectionOf(system)?.getSnapshot().context.connectionId
      return id === undefined ? undefined : this.open.get(id)
    }
    return {
      get connected() {
        const snapshot = extensionConnectionOf(system)?.getSnapshot()
        return snapshot !== undefined && snapshot.value !== 'noConnection'
      },
      notify(method, params, options = {}) {
        const peer = active()?.peer
        if (!peer) return false
        return options.soon ? peer.notifySoon(method, params) : peer.notify(method, params)
      },
      request(method, params) {
        const open = active()
        if (!open) return undefined
        const { id, result } = open.peer.request(method, params)
        return { result, forget: () => open.peer.forget(id) }
      },
    }
  }

  /**
   * The secret changed: every open socket was authenticated with the old one, so close them (4002
   * "secret rotated"). The extension re-reads auth.json and reconnects with the new secret.
   */
  secretRotated(): void {
    for (const { peer, socket } of this.open.values()) {
      peer.close('secret rotated')
      socket.close(4002, 'secret rotated')
    }
  }

  stop(): void {
    this.stoppedAt = Date.now()
    for (const { peer, socket } of this.open.values()) {
      peer.close('daemon stopping')
      socket.close(1001, 'daemon stopping')
    }
    // The connection actor and the pluginTab children stop with the root system.
  }
}

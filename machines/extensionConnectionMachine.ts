import { assign, sendParent, setup } from 'xstate'

/** How long a connection may stay silent (no frame at all) before it counts as dead. */
export const EXTENSION_KEEPALIVE_TIMEOUT_MS = 60_000

/** Close codes the daemon uses on /ws. */
export const WS_CLOSE_REPLACED = 4000
export const WS_CLOSE_KEEPALIVE = 4001

export interface ExtensionConnectionContext {
  /** The active socket's id (the daemon keeps the socket itself); undefined with no connection. */
  connectionId: string | undefined
}

export type ExtensionConnectionEvent =
  | { type: 'ws.opened'; connectionId: string }
  | { type: 'ws.closed'; connectionId: string }
  /** Any inbound frame on a socket: proof of life. */
  | { type: 'ws.activity'; connectionId: string }
  | { type: 'ws.ping'; connectionId: string; ts: number }

/**
 * The one active extension connection: noConnection -> connected. A new socket replaces the old one
 * (closed with 4000 "replaced"); losing the active socket, or its silence past the keepalive
 * timeout, fails every in-flight call and closes every plugin tab. `sync.full` goes out on connect.
 */
export const extensionConnectionMachine = setup({
  types: {
    context: {} as ExtensionConnectionContext,
    events: {} as ExtensionConnectionEvent,
  },
  actions: {
    sendSyncFull: (_, _params: { connectionId: string }) => undefined,
    sendPong: (_, _params: { connectionId: string; ts: number }) => undefined,
    closeSocket: (_, _params: { connectionId: string; code: number; reason: string }) => undefined,
    /**
     * Tells the root (its parent), which fails in-flight invocations with extension_disconnected and
     * closes every pluginTab.
     */
    connectionLost: sendParent({ type: 'extension.lost' }),
  },
  guards: {
    isCurrent: ({ context }, params: { connectionId: string }) =>
      context.connectionId === params.connectionId,
  },
  delays: { keepaliveTimeout: EXTENSION_KEEPALIVE_TIMEOUT_MS },
}).createMachine({
  id: 'extensionConnection',
  context: { connectionId: undefined },
  initial: 'noConnection',
  states: {
    noConnection: {
      on: {
        'ws.opened': {
          target: 'connected',
          actions: [
            assign({ connectionId: ({ event }) => event.connectionId }),
            { type: 'sendSyncFull', params: ({ event }) => ({ connectionId: event.connectionId }) },
          ],
        },
      },
    },
    connected: {
      initial: 'alive',
      states: {
        alive: {
          after: {
            keepaliveTimeout: {
              target: '#extensionConnection.noConnection',
              actions: [
                {
                  type: 'closeSocket',
                  params: ({ context }) => ({
                    connectionId: context.connectionId ?? '',
                    code: WS_CLOSE_KEEPALIVE,
                    reason: 'keepalive timeout',
                  }),
                },
                'connectionLost',
                assign({ connectionId: undefined }),
              ],
            },
          },
        },
      },
      on: {
        'ws.opened': {
          target: 'connected',
          reenter: true,
          actions: [
            {
              type: 'closeSocket',
              params: ({ context }) => ({
                connectionId: context.connectionId ?? '',
                code: WS_CLOSE_REPLACED,
                reason: 'replaced',
              }),
            },
            // Calls dispatched over the old socket can never be answered on the new one.
            'connectionLost',
            assign({ connectionId: ({ event }) => event.connectionId }),
            { type: 'sendSyncFull', params: ({ event }) => ({ connectionId: event.connectionId }) },
          ],
        },
        'ws.closed': {
          guard: { type: 'isCurrent', params: ({ event }) => ({ connectionId: event.connectionId }) },
          target: 'noConnection',
          actions: ['connectionLost', assign({ connectionId: undefined })],
        },
        'ws.activity': {
          guard: { type: 'isCurrent', params: ({ event }) => ({ connectionId: event.connectionId }) },
          target: '.alive',
        },
        'ws.ping': {
          guard: { type: 'isCurrent', params: ({ event }) => ({ connectionId: event.connectionId }) },
          target: '.alive',
          actions: {
            type: 'sendPong',
            params: ({ event }) => ({ connectionId: event.connectionId, ts: event.ts }),
          },
        },
      },
    },
  },
})

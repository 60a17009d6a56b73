/**
 * `subscriptions/listen` streams of the stateless revision (2026-07-28): each an event stream whose
 * first message acknowledges what bridge will send (tool list changes only: it has no prompts or
 * resources), then carries those notifications, each tagged with the listen request's id. A client
 * holds a bounded number; its removal, `notifications/cancelled` for the id, or the stream closing ends
 * one; the daemon stopping ends each with its (empty) result.
 */
import type { EventSink, HttpReply } from '../http/engine'
import { JsonRpcErrorCode } from '../protocol/errors'
import { McpError, notificationJson, resultJson, sseEvent, type RpcId } from './callRunner'
import { EVENT_STREAM_HEADERS, META, resultText } from './statelessResults'

const MAX_LISTEN_STREAMS = 16

interface Listener {
  client: string
  id: RpcId
  toolsListChanged: boolean
  sink: EventSink
}

export class ListenStreams {
  private readonly listeners = new Set<Listener>()

  constructor(private readonly maxPerClient = MAX_LISTEN_STREAMS) {}

  get count(): number {
    return this.listeners.size
  }

  /** Answers a `subscriptions/listen` request of `client`. */
  open(client: string, id: RpcId, params: Record<string, unknown>): HttpReply {
    const asked = params.notifications
    if (typeof asked !== 'object' || asked === null || Array.isArray(asked))
      throw new McpError(JsonRpcErrorCode.invalidParams, 'Invalid params: notifications must be an object')
    if ([...this.listeners].filter((listener) => listener.client === client).length >= this.maxPerClient)
      throw new McpError(
        JsonRpcErrorCode.invalidRequest,
        `Invalid Request: at most ${this.maxPerClient} subscriptions/listen streams per client; close one first`,
      )
    // bridge has tools only: the other kinds are left out of the acknowledgement, and never sent.
    const toolsListChanged = (asked as Record<string, unknown>).toolsListChanged === true
    const listeners = this.listeners
    return {
      status: 200,
      headers: EVENT_STREAM_HEADERS,
      body: {
        open(sink) {
          const listener: Listener = { client, id, toolsListChanged, sink }
          listeners.add(listener)
          sink.onClose(() => listeners.delete(listener))
          sink.write(
            sseEvent(
              notificationJson('notifications/subscriptions/acknowledged', {
                notifications: toolsListChanged ? { toolsListChanged: true } : {},
                _meta: { [META.subscriptionId]: id },
              }),
            ),
          )
        },
      },
    }
  }

  /** notifications/tools/list_changed on every stream that asked for it. */
  toolsChanged(): void {
    for (const listener of this.listeners)
      if (listener.toolsListChanged)
        listener.sink.write(
          sseEvent(
            notificationJson('notifications/tools/list_changed', {
              _meta: { [META.subscriptionId]: listener.id },
            }),
          ),
        )
  }

  /** The client cancelled its listen request `id`. */
  cancel(client: string, id: RpcId): void {
    for (const listener of [...this.listeners])
      if (listener.client === client && listener.id === id) listener.sink.end()
  }

  closeClient(client: string): void {
    for (const listener of [...this.listeners]) if (listener.client === client) listener.sink.end()
  }

  /** Each stream gets its closing result, then ends. */
  closeAll(): void {
    for (const listener of [...this.listeners]) {
      listener.sink.write(
        sseEvent(resultJson(listener.id, resultText({ _meta: { [META.subscriptionId]: listener.id } }))),
      )
      listener.sink.end()
    }
  }
}

/**
 * The shape of a /ws request handler, apart from the table (./methods.ts) so the files that build
 * parts of the table depend on the shape, not on the table.
 */
import type { ClientRequestName, ClientRequests, RequestParams, RequestResult } from '../protocol'

export type MethodHandler<K extends ClientRequestName> = (
  params: RequestParams<typeof ClientRequests, K>,
) => Promise<RequestResult<typeof ClientRequests, K>>

export type MethodHandlers = { [K in ClientRequestName]: MethodHandler<K> }

/** Runs the handler of a request whose method and params the peer has already checked. */
export function callMethod(
  handlers: MethodHandlers,
  method: ClientRequestName,
  params: unknown,
): Promise<unknown> {
  return (handlers[method] as (params: unknown) => Promise<unknown>)(params)
}

/** Network: one request in detail, WebSocket frames, conditions, and routes that block or answer requests. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { TabIdField, StringEnum, OrNull } from './common'

const Route = Type.Object({
  id: Type.String(),
  urlPattern: Type.String(),
  action: StringEnum(['block', 'fulfill']),
  hits: Type.Integer(),
})

export const networkRequest = defineBrowserTool({
  name: 'browser_network_request',
  displayName: 'Network request',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'One recorded request (id from browser_network_requests) by part: request or response headers, or body, from offset, capped. Values not known to be harmless (headers, request body fields, GraphQL literals; credential-named fields of response bodies) stay [redacted] unless the recording includes them. Returns { id, url, part, text, length, truncated, withheld? }.',
  narrow: 'read one part at a time, from offset, with a lower maxLength',
  input: Type.Object({
    tabId: TabIdField,
    id: Type.String({ minLength: 1, maxLength: 200, description: 'From browser_network_requests.' }),
    part: StringEnum(['requestHeaders', 'responseHeaders', 'requestBody', 'responseBody'], {
      description: 'Which part.',
    }),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Start at this character.' })),
    maxLength: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 100_000,
        default: 20_000,
        description: 'Characters (default 20000).',
      }),
    ),
  }),
})

export const websocketFrames = defineBrowserTool({
  name: 'browser_websocket_frames',
  displayName: 'WebSocket frames',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'The WebSocket frames sent and received since browser_network_start, oldest first, each cut at 2000 characters; URL and frame values not known to be harmless [redacted] unless the recording includes them. Returns { sockets: [{ id, url }], frames: [{ socket, direction, text, at }], total, withheld? }.',
  narrow: 'pass urlContains, or a lower limit',
  input: Type.Object({
    tabId: TabIdField,
    urlContains: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2000, description: 'Only sockets whose URL contains this.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 500,
        default: 50,
        description: 'Most recent frames (default 50).',
      }),
    ),
  }),
  output: Type.Object({
    sockets: Type.Array(Type.Object({ id: Type.String(), url: Type.String() })),
    frames: Type.Array(
      Type.Object({
        socket: Type.String(),
        direction: StringEnum(['sent', 'received']),
        text: Type.String(),
        at: Type.Integer(),
      }),
    ),
    total: Type.Integer(),
    withheld: Type.Optional(Type.Array(Type.String())),
  }),
})

export const networkConditions = defineBrowserTool({
  name: 'browser_network_conditions',
  pageText: false,
  displayName: 'Network conditions',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    'Make a tab offline or slow (latency, throughput), or back to normal with no option. Holds the Chrome debugger on the tab while set. Returns { offline, latencyMs, downloadKbps, uploadKbps }.',
  input: Type.Object({
    tabId: TabIdField,
    offline: Type.Optional(Type.Boolean({ default: false, description: 'No network at all.' })),
    latencyMs: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 60_000, default: 0, description: 'Added round-trip time.' }),
    ),
    downloadKbps: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'Download speed.' }),
    ),
    uploadKbps: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10_000_000, description: 'Upload speed.' }),
    ),
  }),
  output: Type.Object({
    offline: Type.Boolean(),
    latencyMs: Type.Integer(),
    downloadKbps: OrNull('integer'),
    uploadKbps: OrNull('integer'),
  }),
})

export const routeAdd = defineBrowserTool({
  name: 'browser_route_add',
  pageText: false,
  sink: { page: true },
  displayName: 'Add route',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    'Block or answer the requests of a tab whose URL matches a pattern (* wildcards), at once and without pausing: action block fails them, fulfill answers with status, headers and body. Returns { id, routes }.',
  input: Type.Object({
    tabId: TabIdField,
    urlPattern: Type.String({ minLength: 1, maxLength: 2000, description: 'e.g. "*/api/ads*".' }),
    action: StringEnum(['block', 'fulfill'], { description: 'Fail or answer.' }),
    status: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 599, default: 200, description: 'Status for fulfill.' }),
    ),
    contentType: Type.Optional(
      Type.String({ maxLength: 200, default: 'text/plain', description: 'Content-Type for fulfill.' }),
    ),
    body: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'Body for fulfill.' })),
  }),
  output: Type.Object({ id: Type.String(), routes: Type.Array(Route) }),
})

export const routeList = defineBrowserTool({
  name: 'browser_route_list',
  displayName: 'List routes',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    'The routes of a tab with how many requests each matched. Returns { routes: [{ id, urlPattern, action, hits }] }.',
  input: Type.Object({ tabId: TabIdField }),
  output: Type.Object({ routes: Type.Array(Route) }),
})

export const routeRemove = defineBrowserTool({
  name: 'browser_route_remove',
  pageText: false,
  displayName: 'Remove route',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: 'Remove one route by id, or every route of the tab without id. Returns { removed, routes }.',
  input: Type.Object({
    tabId: TabIdField,
    id: Type.Optional(Type.String({ maxLength: 50, description: 'Route id; all without it.' })),
  }),
  output: Type.Object({ removed: Type.Integer(), routes: Type.Array(Route) }),
})

/** The extension itself. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { StringEnum, AnyJson } from './common'

export const getState = defineBrowserTool({
  name: 'extension_get_state',
  displayName: 'Extension state',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    "Report the bridge extension's own state: version, connection to the daemon, plugins and their tabs, open tab count, tabs under debugger control and network captures. Use it to diagnose why a plugin tool fails. Returns one JSON object.",
  input: Type.Object({}),
  output: Type.Object({
    extensionId: Type.String(),
    version: Type.String(),
    bridgeVersion: Type.String(),
    windows: Type.Integer(),
    tabs: Type.Integer(),
    debuggerSessions: Type.Array(
      Type.Object({ tabId: Type.Integer(), holds: Type.Array(Type.String()), dialogOpen: Type.Boolean() }),
    ),
    networkCaptures: Type.Array(
      Type.Object({ tabId: Type.Integer(), capturing: Type.Boolean(), requests: Type.Integer() }),
    ),
    extension: Type.Optional(AnyJson),
  }),
})

export const getLogs = defineBrowserTool({
  name: 'extension_get_logs',
  displayName: 'Extension logs',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    "Read the bridge extension's recent log (connection events, tool runs, injection errors), oldest first, at most the last 500 entries. Returns { entries: [{ ts, level, message, data? }] }.",
  narrow: 'pass a level or a lower limit',
  input: Type.Object({
    level: Type.Optional(
      StringEnum(['debug', 'info', 'warning', 'error'], {
        description: 'Minimum level to return (default: all).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 500,
        default: 100,
        description: 'Most recent entries (default 100).',
      }),
    ),
  }),
  output: Type.Object({
    entries: Type.Array(
      Type.Object({
        ts: Type.Integer(),
        level: StringEnum(['debug', 'info', 'warning', 'error']),
        message: Type.String(),
        data: Type.Optional(AnyJson),
      }),
    ),
  }),
})

export const reloadExtension = defineBrowserTool({
  name: 'extension_reload',
  pageText: false,
  displayName: 'Reload extension',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  description:
    'Reload the bridge extension (for example after an update). The extension disconnects and reconnects within seconds; calls in flight fail. Returns { reloading: true, inMs } before the reload starts.',
  input: Type.Object({}),
  output: Type.Object({ reloading: Type.Literal(true), inMs: Type.Integer() }),
})

export const forceReconnect = defineBrowserTool({
  name: 'extension_force_reconnect',
  pageText: false,
  displayName: 'Reconnect extension',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  description:
    "Close and reopen the extension's connection to the daemon, e.g. after it got stuck. This call may fail as the socket closes; the next one runs on the new connection. Returns { reconnecting: true }.",
  input: Type.Object({}),
  output: Type.Object({ reconnecting: Type.Literal(true) }),
})

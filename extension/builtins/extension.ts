/** extension_get_state, extension_get_logs, extension_reload. */
import type { Handlers } from './context'
import { BRIDGE_VERSION } from '../../src/protocol/constants'
import type { extension as defs, BrowserToolInput } from '../../src/tools'
import { debuggerSessions } from './debuggerSession'
import { extensionLogEntries, type ExtensionLogEntry } from './extensionLog'
import { internal } from './errors'
import { captureSummaries } from './networkCapture'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const LEVELS = ['debug', 'info', 'warning', 'error']
const RELOAD_DELAY_MS = 300

export interface BuiltinHooks {
  /** Connection, plugins and tab state as the rest of the extension knows them. */
  getState?: () => unknown
  /** The extension's log, when it keeps one of its own; else the built-in tools' log is used. */
  getLogs?: () => readonly ExtensionLogEntry[]
  /** A built-in tool's effective permission as the daemon has it now (asked fresh, not from a cache). */
  toolPermission?: (tool: string) => Promise<string | undefined>
  /** Closes the daemon connection and opens it again at once. */
  reconnect?: () => void
}

export const hooks: BuiltinHooks = {}

export async function getState(_input: In<'getState'>) {
  const [tabs, windows] = await Promise.all([chrome.tabs.query({}), chrome.windows.getAll()])
  const manifest = chrome.runtime.getManifest()
  let extra: unknown
  try {
    extra = await hooks.getState?.()
  } catch (err) {
    extra = { error: err instanceof Error ? err.message : String(err) }
  }
  return {
    extensionId: chrome.runtime.id,
    version: manifest.version,
    bridgeVersion: BRIDGE_VERSION,
    windows: windows.length,
    tabs: tabs.length,
    debuggerSessions: debuggerSessions(),
    networkCaptures: captureSummaries(),
    ...(extra !== undefined ? { extension: extra } : {}),
  }
}

export async function getLogs(input: In<'getLogs'>) {
  const all = hooks.getLogs?.() ?? extensionLogEntries()
  const min = LEVELS.indexOf(input.level ?? 'debug')
  const matching = all.filter((e) => LEVELS.indexOf(e.level) >= min)
  return Promise.resolve({ entries: matching.slice(-(input.limit ?? 100)) })
}

/** Answers first, then reloads: the reply must leave before the service worker goes away. */
export async function reloadExtension(_input: In<'reloadExtension'>) {
  setTimeout(() => chrome.runtime.reload(), RELOAD_DELAY_MS)
  return Promise.resolve({ reloading: true as const, inMs: RELOAD_DELAY_MS })
}

/** Answers first, then drops the socket: the reply must leave on the old connection. */
async function forceReconnect(_input: In<'forceReconnect'>) {
  const reconnect = hooks.reconnect
  if (!reconnect) throw internal('this extension build has no daemon connection to reconnect')
  setTimeout(reconnect, RELOAD_DELAY_MS)
  return Promise.resolve({ reconnecting: true as const })
}

export const extensionHandlers: Handlers<typeof defs> = { getState, getLogs, reloadExtension, forceReconnect }

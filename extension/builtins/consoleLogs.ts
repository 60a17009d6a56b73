/**
 * browser_console_logs. V8 keeps a page's console messages (since the page loaded) and replays them
 * to a debugger client that enables the Runtime domain, so nothing has to be recorded in advance: the
 * tool attaches, collects the replay, and lets go.
 */
import type { devtools as defs, BrowserToolInput } from '../../src/tools'
import { withDebugger } from './debuggerSession'
import { notFound, sleep } from './errors'
import { resolveTab, tabIdOf } from './tabLookup'

type In<K extends keyof typeof defs = 'consoleLogs'> = BrowserToolInput<(typeof defs)[K]>
type Level = 'debug' | 'info' | 'warning' | 'error'

interface RemoteObject {
  type: string
  subtype?: string
  value?: unknown
  unserializableValue?: string
  description?: string
}
interface StackTrace {
  callFrames: { functionName: string; url: string; lineNumber: number; columnNumber: number }[]
}

export interface ConsoleEntry {
  id: number
  level: Level
  text: string
  timestamp: number
  url?: string
  line?: number
}

interface FullEntry extends ConsoleEntry {
  full: string
  stack?: StackTrace
}

const LEVEL_ORDER: Level[] = ['debug', 'info', 'warning', 'error']
const MAX_TEXT_CHARS = 4_000
const MAX_FULL_CHARS = 50_000
const LEVEL_OF: Record<string, Level> = {
  debug: 'debug',
  trace: 'debug',
  warning: 'warning',
  error: 'error',
  assert: 'error',
}

function render(arg: RemoteObject): string {
  if (arg.type === 'string') return String(arg.value)
  if (arg.unserializableValue !== undefined) return arg.unserializableValue
  if (arg.type === 'undefined') return 'undefined'
  if (arg.value !== undefined) return JSON.stringify(arg.value)
  return arg.description ?? arg.type
}

function place(stack: StackTrace | undefined): Pick<ConsoleEntry, 'url' | 'line'> {
  const frame = stack?.callFrames[0]
  return frame?.url ? { url: frame.url, line: frame.lineNumber + 1 } : {}
}

const clip = (text: string) =>
  text.length > MAX_TEXT_CHARS
    ? `${text.slice(0, MAX_TEXT_CHARS)}… [truncated: browser_console_message with its id has more]`
    : text

/** Every console message and uncaught error V8 kept for the page, in order, with stacks. */
async function collect(tab: chrome.tabs.Tab): Promise<FullEntry[]> {
  const tabId = tabIdOf(tab)
  const entries: FullEntry[] = []
  const add = (entry: Omit<FullEntry, 'id' | 'text'>) =>
    entries.push({ ...entry, id: entries.length, text: clip(entry.full) })
  await withDebugger(tabId, tab.url, async (cdp) => {
    const off = cdp.on((method, params) => {
      if (method === 'Runtime.consoleAPICalled') {
        const p = params as { type: string; args: RemoteObject[]; timestamp: number; stackTrace?: StackTrace }
        add({
          level: LEVEL_OF[p.type] ?? 'info',
          full: p.args.map(render).join(' '),
          timestamp: Math.round(p.timestamp),
          stack: p.stackTrace,
          ...place(p.stackTrace),
        })
      } else if (method === 'Runtime.exceptionThrown') {
        const p = params as {
          timestamp: number
          exceptionDetails: {
            text: string
            exception?: RemoteObject
            url?: string
            lineNumber?: number
            stackTrace?: StackTrace
          }
        }
        const d = p.exceptionDetails
        add({
          level: 'error',
          full: d.exception?.description ?? d.text,
          timestamp: Math.round(p.timestamp),
          stack: d.stackTrace,
          ...(d.url ? { url: d.url, line: (d.lineNumber ?? 0) + 1 } : place(d.stackTrace)),
        })
      }
    })
    try {
      await cdp.send('Runtime.enable')
      // The replayed messages arrive around the enable reply; give stragglers a moment.
      await sleep(100)
      await cdp.send('Runtime.disable')
    } finally {
      off()
    }
  })
  return entries
}

export async function consoleLogs(input: In) {
  const tab = await resolveTab(input.tabId)
  const entries = await collect(tab)
  const min = LEVEL_ORDER.indexOf(input.level ?? 'debug')
  const matching = entries
    .filter((e) => LEVEL_ORDER.indexOf(e.level) >= min)
    .filter((e) => input.textContains === undefined || e.text.includes(input.textContains))
  const limit = input.limit ?? 200
  return {
    entries: matching.slice(-limit).map(({ full: _full, stack: _stack, ...entry }) => entry),
    total: matching.length,
  }
}

export async function consoleMessage(input: In<'consoleMessage'>) {
  const tab = await resolveTab(input.tabId)
  const entry = (await collect(tab))[input.id]
  if (!entry)
    throw notFound(
      `no console message ${input.id} on the page in tab ${tab.id}: ids come from browser_console_logs and change after browser_console_clear or a reload`,
    )
  return {
    id: entry.id,
    level: entry.level,
    text:
      entry.full.length > MAX_FULL_CHARS ? `${entry.full.slice(0, MAX_FULL_CHARS)}… [truncated]` : entry.full,
    timestamp: entry.timestamp,
    stack: (entry.stack?.callFrames ?? []).slice(0, 50).map((f) => ({
      function: f.functionName || '(anonymous)',
      url: f.url,
      line: f.lineNumber + 1,
      column: f.columnNumber + 1,
    })),
  }
}

/** V8 forgets what it kept, so later reads (and their replays) start from here. */
export async function consoleClear(input: In<'consoleClear'>) {
  const tab = await resolveTab(input.tabId)
  const before = (await collect(tab)).length
  await withDebugger(tabIdOf(tab), tab.url, async (cdp) => {
    await cdp.send('Runtime.discardConsoleEntries')
  })
  return { cleared: before }
}

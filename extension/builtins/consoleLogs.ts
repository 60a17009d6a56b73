/**
 * browser_console_logs. V8 keeps a page's console messages (since the page loaded) and replays them
 * to a debugger client that enables the Runtime domain, so nothing has to be recorded in advance: the
 * tool attaches, collects the replay, and lets go.
 */
import type { devtools as defs, BrowserToolInput } from '../../src/tools'
import { withDebugger } from './debuggerSession'
import { sleep } from './errors'
import { resolveTab, tabIdOf } from './tabs'

type In = BrowserToolInput<typeof defs.consoleLogs>
type Level = 'debug' | 'info' | 'warning' | 'error'

interface RemoteObject {
  type: string
  subtype?: string
  value?: unknown
  unserializableValue?: string
  description?: string
}
interface StackTrace {
  callFrames: { url: string; lineNumber: number }[]
}

export interface ConsoleEntry {
  level: Level
  text: string
  timestamp: number
  url?: string
  line?: number
}

const LEVEL_ORDER: Level[] = ['debug', 'info', 'warning', 'error']
const MAX_TEXT_CHARS = 4_000
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
  text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)}… [truncated]` : text

export async function consoleLogs(input: In) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  const entries: ConsoleEntry[] = []
  await withDebugger(tabId, tab.url, async (cdp) => {
    const off = cdp.on((method, params) => {
      if (method === 'Runtime.consoleAPICalled') {
        const p = params as { type: string; args: RemoteObject[]; timestamp: number; stackTrace?: StackTrace }
        entries.push({
          level: LEVEL_OF[p.type] ?? 'info',
          text: clip(p.args.map(render).join(' ')),
          timestamp: Math.round(p.timestamp),
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
        const text = d.exception?.description ?? d.text
        entries.push({
          level: 'error',
          text: clip(text),
          timestamp: Math.round(p.timestamp),
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
  const min = LEVEL_ORDER.indexOf(input.level ?? 'debug')
  const matching = entries
    .filter((e) => LEVEL_ORDER.indexOf(e.level) >= min)
    .filter((e) => input.textContains === undefined || e.text.includes(input.textContains))
    .sort((a, b) => a.timestamp - b.timestamp)
  const limit = input.limit ?? 200
  return { entries: matching.slice(-limit), total: matching.length }
}

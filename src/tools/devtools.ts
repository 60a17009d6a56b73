/** What developer tools show: screenshots, console messages, network traffic. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { RefField, SelectorField, TabIdField, StringEnum, OrNull, StringMap } from './common'

const Level = StringEnum(['debug', 'info', 'warning', 'error'])
const Withheld = Type.Optional(Type.Array(Type.String()))
const UrlContains = Type.Optional(
  Type.String({ minLength: 1, maxLength: 2000, description: 'Only URLs containing this.' }),
)

export const screenshot = defineBrowserTool({
  name: 'browser_screenshot',
  core: true,
  pageText: false,
  displayName: 'Screenshot',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Screenshot the viewport, the full page (up to 16384 px high) or an element, scaled to fit maxSide. A background tab that does not paint times out: browser_focus_tab it. Returns an image.',
  input: Type.Object({
    tabId: TabIdField,
    fullPage: Type.Optional(Type.Boolean({ default: false, description: 'Whole page.' })),
    ref: RefField,
    selector: SelectorField,
    format: Type.Optional(StringEnum(['png', 'jpeg', 'webp'], { default: 'png', description: 'Format.' })),
    quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'jpeg/webp quality.' })),
    maxSide: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 16_384, default: 1568, description: 'Pixels.' }),
    ),
  }),
})

export const savePdf = defineBrowserTool({
  name: 'browser_save_pdf',
  displayName: 'Save as PDF',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    "Print the page to a PDF file in the user's downloads folder. Returns { downloadId, filename, bytes }.",
  input: Type.Object({
    tabId: TabIdField,
    filename: Type.Optional(
      Type.String({ pattern: '^[\\w .()-]{1,100}\\.pdf$', description: 'Default: page title.pdf' }),
    ),
    landscape: Type.Optional(Type.Boolean({ default: false, description: 'Landscape.' })),
    printBackground: Type.Optional(Type.Boolean({ default: true, description: 'Backgrounds.' })),
  }),
  output: Type.Object({ downloadId: Type.Integer(), filename: Type.String(), bytes: Type.Integer() }),
})

export const consoleLogs = defineBrowserTool({
  name: 'browser_console_logs',
  displayName: 'Console logs',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Console messages and uncaught errors of the page since it loaded (or browser_console_clear), oldest first. Returns { entries: [{ id, level, text, timestamp, url?, line? }], total }.',
  narrow: 'pass textContains, a level, or a lower limit',
  input: Type.Object({
    tabId: TabIdField,
    level: Type.Optional(
      StringEnum(['debug', 'info', 'warning', 'error'], {
        description: 'Minimum level to return (default: all).',
      }),
    ),
    textContains: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Only messages containing this text.' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 200, description: 'Most recent entries.' }),
    ),
  }),
  output: Type.Object({
    entries: Type.Array(
      Type.Object({
        id: Type.Integer(),
        level: Level,
        text: Type.String(),
        timestamp: Type.Integer(),
        url: Type.Optional(Type.String()),
        line: Type.Optional(Type.Integer()),
      }),
    ),
    total: Type.Integer(),
  }),
})

export const networkStart = defineBrowserTool({
  name: 'browser_network_start',
  displayName: 'Start network capture',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  description:
    "Start recording the network requests of a tab (clearing any earlier recording for it), through the Chrome debugger. Recording lasts until browser_network_stop or the tab closes, keeps the last 1000 requests and WebSocket frames; bodies stay in Chrome for browser_network_request. Only values known to be harmless are recorded (a few headers such as content-type, cookie names, query values under names such as page or q); the rest is [redacted] and named in withheld, unless includeCredentials is true and this tool's permission is ask, so a person approves it. Returns { tabId, capturing: true } (+ credentials: included|redacted when includeCredentials was given).",
  input: Type.Object({
    tabId: TabIdField,
    includeCredentials: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Record credential values as they are; honoured only when this tool is set to ask.',
      }),
    ),
  }),
  output: Type.Object({
    tabId: Type.Integer(),
    capturing: Type.Literal(true),
    credentials: Type.Optional(StringEnum(['included', 'redacted'])),
  }),
})

export const networkStop = defineBrowserTool({
  name: 'browser_network_stop',
  displayName: 'Stop network capture',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    'Stop recording network requests in a tab; what was recorded stays readable with browser_network_requests and browser_network_export_har. Returns { tabId, capturing: false, requests }.',
  input: Type.Object({ tabId: TabIdField }),
  output: Type.Object({ tabId: Type.Integer(), capturing: Type.Literal(false), requests: Type.Integer() }),
})

export const networkRequests = defineBrowserTool({
  name: 'browser_network_requests',
  displayName: 'Network requests',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'The requests recorded since browser_network_start, oldest first; values not known to be harmless [redacted] unless recorded, named in each withheld. Returns { capturing, total, requests: [{ id, method, url, type, status, mimeType, failed, startedAt, durationMs, withheld?, ... }], redaction? }.',
  narrow: 'pass urlContains, a lower limit, or includeHeaders: false',
  input: Type.Object({
    tabId: TabIdField,
    urlContains: UrlContains,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Most recent requests.' }),
    ),
    includeHeaders: Type.Optional(Type.Boolean({ default: false, description: 'With headers.' })),
  }),
  output: Type.Object({
    capturing: Type.Boolean(),
    total: Type.Integer(),
    requests: Type.Array(
      Type.Object({
        id: Type.String(),
        method: Type.String(),
        url: Type.String(),
        type: Type.String(),
        status: OrNull('integer'),
        statusText: OrNull('string'),
        mimeType: OrNull('string'),
        failed: Type.Boolean(),
        errorText: OrNull('string'),
        encodedDataLength: OrNull('number'),
        startedAt: Type.Integer(),
        durationMs: OrNull('integer'),
        requestHeaders: Type.Optional(StringMap()),
        responseHeaders: Type.Optional(StringMap()),
        withheld: Withheld,
      }),
    ),
    redaction: Type.Optional(Type.String()),
  }),
})

export const networkExportHar = defineBrowserTool({
  name: 'browser_network_export_har',
  displayName: 'Export HAR',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'Export the requests recorded since browser_network_start in a tab as a HAR 1.2 object ({ log: { version, creator, pages, entries } }), without bodies and with values not known to be harmless [redacted] (unless the recording was started with includeCredentials under an ask permission). Returns the most recent maxEntries requests.',
  narrow: 'pass urlContains or a lower maxEntries',
  input: Type.Object({
    tabId: TabIdField,
    urlContains: UrlContains,
    maxEntries: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 200,
        description: 'Most recent requests to include (default 200).',
      }),
    ),
  }),
  output: Type.Object({
    log: Type.Object({
      version: Type.String(),
      comment: Type.Optional(Type.String()),
      creator: Type.Object({ name: Type.String(), version: Type.String() }),
      pages: Type.Array(
        Type.Object({ id: Type.String(), startedDateTime: Type.String(), title: Type.String() }),
      ),
      entries: Type.Array(
        Type.Object({
          startedDateTime: Type.String(),
          time: Type.Number(),
          request: Type.Object({ method: Type.String(), url: Type.String() }),
          response: Type.Object({ status: Type.Integer() }),
        }),
      ),
    }),
  }),
})

export const consoleClear = defineBrowserTool({
  name: 'browser_console_clear',
  pageText: false,
  displayName: 'Clear console',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    'Forget the console messages and errors of the page so far; browser_console_logs then shows only newer ones. Returns { cleared: N }.',
  input: Type.Object({ tabId: TabIdField }),
  output: Type.Object({ cleared: Type.Integer() }),
})

export const consoleMessage = defineBrowserTool({
  name: 'browser_console_message',
  displayName: 'Console message',
  annotations: { readOnlyHint: true, openWorldHint: true },
  description:
    'One console message or error in full (id from browser_console_logs), with its stack. Returns { id, level, text, timestamp, stack: [{ function, url, line, column }] }.',
  input: Type.Object({
    tabId: TabIdField,
    id: Type.Integer({ minimum: 0, description: 'From browser_console_logs.' }),
  }),
  output: Type.Object({
    id: Type.Integer(),
    level: Level,
    text: Type.String(),
    timestamp: Type.Integer(),
    stack: Type.Array(
      Type.Object({
        function: Type.String(),
        url: Type.String(),
        line: Type.Integer(),
        column: Type.Integer(),
      }),
    ),
  }),
})

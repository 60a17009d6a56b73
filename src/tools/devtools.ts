/** What developer tools show: screenshots, console messages, network traffic. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { RefField, SelectorField, TabIdField } from './common'

const UrlContains = Type.Optional(
  Type.String({ minLength: 1, maxLength: 2000, description: 'Only requests whose URL contains this text.' }),
)

export const screenshot = defineBrowserTool({
  name: 'browser_screenshot',
  displayName: 'Screenshot',
  description:
    'Take a PNG screenshot of the visible part of a tab, of the full page (fullPage), or of one element (ref or selector). The tab is not brought to front; in a visible browser a background tab may not paint, and the call then fails with a timeout asking to focus it (browser_focus_tab). Returns an image. Full-page shots are cut at 16384 pixels high.',
  input: Type.Object({
    tabId: TabIdField,
    fullPage: Type.Optional(
      Type.Boolean({ default: false, description: 'Capture the whole scrollable page (default false).' }),
    ),
    ref: RefField,
    selector: SelectorField,
  }),
})

export const consoleLogs = defineBrowserTool({
  name: 'browser_console_logs',
  displayName: 'Console logs',
  description:
    'Read the console messages and uncaught errors of the current page in a tab, oldest first, including those logged before this call (since the page loaded). Returns { entries: [{ level, text, timestamp, url?, line? }], total } where level is debug, info, warning or error.',
  input: Type.Object({
    tabId: TabIdField,
    level: Type.Optional(
      Type.Union(
        [Type.Literal('debug'), Type.Literal('info'), Type.Literal('warning'), Type.Literal('error')],
        {
          description: 'Minimum level to return (default: all).',
        },
      ),
    ),
    textContains: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Only messages containing this text.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 200,
        description: 'Most recent entries to return (default 200).',
      }),
    ),
  }),
})

export const networkStart = defineBrowserTool({
  name: 'browser_network_start',
  displayName: 'Start network capture',
  description:
    "Start recording the network requests of a tab (clearing any earlier recording for it), through the Chrome debugger. Recording lasts until browser_network_stop or the tab closes, keeps the last 1000 requests, and never records request or response bodies. Credential headers (Authorization, Cookie, Set-Cookie, API keys, CSRF and session tokens) and credential-looking URL parameters (token, key, signature, password, code, session...) are recorded as [redacted], unless includeCredentials is true and this tool's permission is ask, so a person approves it. Returns { tabId, capturing: true }, plus credentials: included|redacted when includeCredentials was given.",
  input: Type.Object({
    tabId: TabIdField,
    includeCredentials: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Record credential values as they are. Honoured only when browser_network_start is set to ask, so the user approves this call; otherwise they stay redacted.',
      }),
    ),
  }),
})

export const networkStop = defineBrowserTool({
  name: 'browser_network_stop',
  displayName: 'Stop network capture',
  description:
    'Stop recording network requests in a tab; what was recorded stays readable with browser_network_requests and browser_network_export_har. Returns { tabId, capturing: false, requests }.',
  input: Type.Object({ tabId: TabIdField }),
})

export const networkRequests = defineBrowserTool({
  name: 'browser_network_requests',
  displayName: 'Network requests',
  description:
    'List the requests recorded since browser_network_start in a tab, oldest first. Returns { capturing, total, requests: [{ id, method, url, type, status, statusText, mimeType, failed, errorText, encodedDataLength, startedAt, durationMs, requestHeaders?, responseHeaders? }] }. Credential headers and credential-looking URL parameters are [redacted] unless the recording was started with includeCredentials under an ask permission.',
  input: Type.Object({
    tabId: TabIdField,
    urlContains: UrlContains,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 100,
        description: 'Most recent requests to return (default 100).',
      }),
    ),
    includeHeaders: Type.Optional(
      Type.Boolean({ default: false, description: 'Include request and response headers (default false).' }),
    ),
  }),
})

export const networkExportHar = defineBrowserTool({
  name: 'browser_network_export_har',
  displayName: 'Export HAR',
  description:
    'Export the requests recorded since browser_network_start in a tab as a HAR 1.2 object ({ log: { version, creator, pages, entries } }), without bodies and with credential headers and credential-looking URL parameters [redacted] (unless the recording was started with includeCredentials under an ask permission). Returns the most recent maxEntries requests.',
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
})

/** Browser state: cookies, web storage, dialogs, downloads. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import {
  TabIdField,
  TimeoutMsField,
  WebUrlField,
  StringEnum,
  DownloadOutput,
  OrNull,
  StorageWriteBase,
  StringMap,
} from './common'

/** A cookie as the cookie tools report it (never its value unless asked for). */
const Cookie = {
  name: Type.String(),
  domain: Type.String(),
  path: Type.String(),
  secure: Type.Boolean(),
  httpOnly: Type.Boolean(),
  sameSite: Type.String(),
  expires: Type.Optional(Type.String()),
}

export const getCookies = defineBrowserTool({
  name: 'browser_get_cookies',
  displayName: 'Get cookies',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    "List the cookies sent to a URL (default: the tab's page). Values are left out unless includeValues is true, because cookies usually hold sign-in sessions. Returns { url, cookies: [{ name, domain, path, secure, httpOnly, sameSite, session, expires?, value? }] }.",
  narrow: 'pass name for one cookie',
  input: Type.Object({
    tabId: TabIdField,
    url: Type.Optional(
      Type.String({
        pattern: '^https?://\\S+$',
        maxLength: 8192,
        description: 'An http(s) URL instead of the tab page.',
      }),
    ),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'Only the cookie with this name.' }),
    ),
    includeValues: Type.Optional(
      Type.Boolean({ default: false, description: 'Include cookie values (default false).' }),
    ),
  }),
  output: Type.Object({
    url: Type.String(),
    cookies: Type.Array(
      Type.Object({ ...Cookie, session: Type.Boolean(), value: Type.Optional(Type.String()) }),
    ),
  }),
})

export const localStorageGet = defineBrowserTool({
  name: 'browser_local_storage_get',
  displayName: 'Read web storage',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    "Read the page's localStorage (or sessionStorage) in a tab: one key, or every key. Each value is cut at 10000 characters with a truncation marker. Returns { origin, storage, count, items: { key: value } } (a missing key is null).",
  narrow: 'pass key for one item',
  input: Type.Object({
    tabId: TabIdField,
    key: Type.Optional(Type.String({ maxLength: 4096, description: 'Read only this key.' })),
    storage: Type.Optional(
      StringEnum(['local', 'session'], {
        default: 'local',
        description: 'Which storage (default local).',
      }),
    ),
  }),
  output: Type.Object({ ...StorageWriteBase, count: Type.Integer(), items: StringMap(true) }),
})

export const handleDialog = defineBrowserTool({
  name: 'browser_handle_dialog',
  core: true,
  sink: { page: true },
  displayName: 'Handle dialog',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description:
    'Accept or dismiss the open alert, confirm, prompt or beforeunload dialog of a tab (it freezes the page). Returns { handled, accepted, type, message }.',
  input: Type.Object({
    tabId: TabIdField,
    accept: Type.Boolean({ description: 'OK (true) or Cancel.' }),
    promptText: Type.Optional(Type.String({ maxLength: 10_000, description: 'Answer to a prompt().' })),
  }),
  output: Type.Object({
    handled: Type.Literal(true),
    accepted: Type.Boolean(),
    type: OrNull('string'),
    message: OrNull('string'),
  }),
})

export const listDownloads = defineBrowserTool({
  name: 'browser_list_downloads',
  source: 'listed',
  displayName: 'List downloads',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description:
    "List the browser's downloads, newest first. Returns { downloads: [{ id, url, filename, state, mime, bytesReceived, totalBytes, startTime, endTime?, error? }] } where state is in_progress, complete or interrupted.",
  input: Type.Object({
    state: Type.Optional(
      StringEnum(['in_progress', 'complete', 'interrupted'], {
        description: 'Only downloads in this state.',
      }),
    ),
    filenameContains: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Only files whose path contains this text.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200, default: 20, description: 'How many (default 20).' }),
    ),
  }),
  output: Type.Object({
    downloads: Type.Array(
      Type.Object({
        ...DownloadOutput.properties,
        mime: Type.String(),
        startTime: Type.String(),
        endTime: Type.Optional(Type.String()),
      }),
    ),
  }),
})

const StorageKind = Type.Optional(
  StringEnum(['local', 'session'], {
    default: 'local',
    description: 'Default local.',
  }),
)
const ORIGIN = "Acts on the tab page's origin only, which the result names."
const HttpUrl = Type.String({
  pattern: '^https?://\\S+$',
  maxLength: 8192,
  description: "Default: the tab's page.",
})

export const setCookie = defineBrowserTool({
  name: 'browser_set_cookie',
  pageText: false,
  sink: { url: 'url', page: true },
  displayName: 'Set cookie',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Set one cookie for the tab page's origin (url: a page of that same origin). Returns { url, name, domain, path, secure, httpOnly, sameSite, expires? }.",
  input: Type.Object({
    tabId: TabIdField,
    url: Type.Optional(HttpUrl),
    name: Type.String({ minLength: 1, maxLength: 4096, description: 'Cookie name.' }),
    value: Type.String({ maxLength: 4096, description: 'Cookie value.' }),
    path: Type.Optional(Type.String({ maxLength: 1000, description: 'Default: the URL path.' })),
    secure: Type.Optional(Type.Boolean({ description: 'HTTPS only.' })),
    httpOnly: Type.Optional(Type.Boolean({ description: 'Hidden from page scripts.' })),
    sameSite: Type.Optional(
      StringEnum(['no_restriction', 'lax', 'strict'], {
        description: 'SameSite.',
      }),
    ),
    expiresInSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 400 * 86_400, description: 'Default: a session cookie.' }),
    ),
  }),
  output: Type.Object({ url: Type.String(), ...Cookie }),
})

export const deleteCookie = defineBrowserTool({
  name: 'browser_delete_cookie',
  pageText: false,
  displayName: 'Delete cookie',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Delete one cookie by name for the tab page's origin (url: a page of that same origin). Returns { url, name, deleted }.",
  input: Type.Object({
    tabId: TabIdField,
    url: Type.Optional(HttpUrl),
    name: Type.String({ minLength: 1, maxLength: 4096, description: 'Cookie name.' }),
  }),
  output: Type.Object({ url: Type.String(), name: Type.String(), deleted: Type.Boolean() }),
})

export const storageSet = defineBrowserTool({
  name: 'browser_storage_set',
  pageText: false,
  sink: { page: true },
  displayName: 'Set storage item',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: `Set a localStorage or sessionStorage item. ${ORIGIN} Returns { origin, storage, key, count }.`,
  input: Type.Object({
    tabId: TabIdField,
    key: Type.String({ maxLength: 4096, description: 'Item key.' }),
    value: Type.String({ maxLength: 1_000_000, description: 'Item value.' }),
    storage: StorageKind,
  }),
  output: Type.Object({ ...StorageWriteBase, key: Type.String(), count: Type.Integer() }),
})

export const storageRemove = defineBrowserTool({
  name: 'browser_storage_remove',
  pageText: false,
  displayName: 'Remove storage item',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: `Remove a localStorage or sessionStorage item. ${ORIGIN} Returns { origin, storage, key, existed, count }.`,
  input: Type.Object({
    tabId: TabIdField,
    key: Type.String({ maxLength: 4096, description: 'Item key.' }),
    storage: StorageKind,
  }),
  output: Type.Object({
    ...StorageWriteBase,
    key: Type.String(),
    existed: Type.Boolean(),
    count: Type.Integer(),
  }),
})

export const storageClear = defineBrowserTool({
  name: 'browser_storage_clear',
  pageText: false,
  displayName: 'Clear storage',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description: `Remove every localStorage or sessionStorage item. ${ORIGIN} Returns { origin, storage, removed }.`,
  input: Type.Object({ tabId: TabIdField, storage: StorageKind }),
  output: Type.Object({ ...StorageWriteBase, removed: Type.Integer() }),
})

export const clearSiteData = defineBrowserTool({
  name: 'browser_clear_site_data',
  pageText: false,
  displayName: 'Clear site data',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  description:
    "Delete everything one origin stored (cookies, storage, IndexedDB, cache, service workers): the tab page's origin, which origin must repeat. Asks first unless this tool is set to auto itself. Returns { origin, cleared }.",
  defaultCap: 'ask',
  input: Type.Object({
    tabId: TabIdField,
    origin: Type.String({
      pattern: '^https?://[^/\\s]+$',
      maxLength: 300,
      description: 'e.g. https://example.com',
    }),
  }),
  output: Type.Object({ origin: Type.String(), cleared: Type.Array(Type.String()) }),
})

const DOWNLOAD = '{ id, url, filename, state, bytesReceived, totalBytes, error? }'

export const download = defineBrowserTool({
  name: 'browser_download',
  source: 'listed',
  sink: { url: 'url' },
  displayName: 'Download',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description: `Download a URL to the user's downloads folder (with the browser's cookies) and wait for it (up to timeoutMs). Returns ${DOWNLOAD}.`,
  input: Type.Object({
    url: WebUrlField,
    filename: Type.Optional(
      Type.String({ pattern: '^[\\w .()-]{1,100}$', description: 'File name in the downloads folder.' }),
    ),
    timeoutMs: TimeoutMsField(30_000, 120_000),
  }),
  output: DownloadOutput,
})

export const waitForDownload = defineBrowserTool({
  name: 'browser_wait_for_download',
  source: 'listed',
  displayName: 'Wait for download',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description: `Wait for a download started on or after sinceMs (default: 10 s ago), e.g. by a click, to finish. Returns ${DOWNLOAD}.`,
  input: Type.Object({
    sinceMs: Type.Optional(Type.Integer({ minimum: 0, description: 'Epoch ms.' })),
    timeoutMs: TimeoutMsField(30_000, 120_000),
  }),
  output: DownloadOutput,
})

export const downloadStatus = defineBrowserTool({
  name: 'browser_download_status',
  source: 'listed',
  displayName: 'Download status',
  annotations: { readOnlyHint: true, openWorldHint: false },
  description: `The state of one download (id from the other download tools). Returns ${DOWNLOAD}.`,
  input: Type.Object({ id: Type.Integer({ minimum: 0, description: 'Download id.' }) }),
  output: DownloadOutput,
})

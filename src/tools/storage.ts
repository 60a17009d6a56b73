/** Browser state: cookies, web storage, dialogs, downloads. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { TabIdField } from './common'

export const getCookies = defineBrowserTool({
  name: 'browser_get_cookies',
  displayName: 'Get cookies',
  description:
    "List the cookies sent to a URL (default: the tab's page). Values are left out unless includeValues is true, because cookies usually hold sign-in sessions. Returns { url, cookies: [{ name, domain, path, secure, httpOnly, sameSite, session, expires?, value? }] }.",
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
})

export const localStorageGet = defineBrowserTool({
  name: 'browser_local_storage_get',
  displayName: 'Read web storage',
  description:
    "Read the page's localStorage (or sessionStorage) in a tab: one key, or every key. Each value is cut at 10000 characters with a truncation marker. Returns { origin, storage, count, items: { key: value } } (a missing key is null).",
  input: Type.Object({
    tabId: TabIdField,
    key: Type.Optional(Type.String({ maxLength: 4096, description: 'Read only this key.' })),
    storage: Type.Optional(
      Type.Union([Type.Literal('local'), Type.Literal('session')], {
        default: 'local',
        description: 'Which storage (default local).',
      }),
    ),
  }),
})

export const handleDialog = defineBrowserTool({
  name: 'browser_handle_dialog',
  displayName: 'Handle dialog',
  description:
    'Accept or dismiss the JavaScript dialog (alert, confirm, prompt, beforeunload) that is open in a tab; while one is open the page is frozen and other page tools time out. Returns { handled: true, accepted, type, message }; fails with not_found when no dialog is open.',
  input: Type.Object({
    tabId: TabIdField,
    accept: Type.Boolean({ description: 'true presses OK, false presses Cancel.' }),
    promptText: Type.Optional(
      Type.String({ maxLength: 10_000, description: 'Text to enter into a prompt() before accepting.' }),
    ),
  }),
})

export const listDownloads = defineBrowserTool({
  name: 'browser_list_downloads',
  displayName: 'List downloads',
  description:
    "List the browser's downloads, newest first. Returns { downloads: [{ id, url, filename, state, mime, bytesReceived, totalBytes, startTime, endTime?, error? }] } where state is in_progress, complete or interrupted.",
  input: Type.Object({
    state: Type.Optional(
      Type.Union([Type.Literal('in_progress'), Type.Literal('complete'), Type.Literal('interrupted')], {
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
})

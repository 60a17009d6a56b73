/** browser_get_cookies, browser_local_storage_get, browser_list_downloads. */
import { handleDialog } from './dialog'
import type { Handlers } from './context'
import type { storage as defs, BrowserToolInput } from '../../src/tools'
import { invalid } from './errors'
import { runInPage } from './pageScript'
import { resolveTab } from './tabs'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

export async function getCookies(input: In<'getCookies'>) {
  let url = input.url
  if (url === undefined) {
    const tab = await resolveTab(input.tabId)
    url = tab.url ?? ''
    if (!/^https?:/i.test(url))
      throw invalid(`tab ${tab.id} shows ${url || 'no page'}, which has no cookies: give an http(s) url`)
  }
  const cookies = await chrome.cookies.getAll(input.name === undefined ? { url } : { url, name: input.name })
  return {
    url,
    cookies: cookies.map((c) => ({
      name: c.name,
      domain: c.domain,
      path: c.path,
      secure: c.secure,
      httpOnly: c.httpOnly,
      sameSite: c.sameSite,
      session: c.session,
      ...(c.expirationDate !== undefined ? { expires: new Date(c.expirationDate * 1000).toISOString() } : {}),
      ...(input.includeValues ? { value: c.value } : {}),
    })),
  }
}

export async function localStorageGet(input: In<'localStorageGet'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage(tab, 'storage', { key: input.key, storage: input.storage ?? 'local' })
}

export async function listDownloads(input: In<'listDownloads'>) {
  const limit = input.limit ?? 20
  const query: chrome.downloads.DownloadQuery = {
    orderBy: ['-startTime'],
    limit: input.filenameContains === undefined ? limit : 0,
  }
  if (input.state !== undefined) query.state = input.state
  const found = await chrome.downloads.search(query)
  const matching =
    input.filenameContains === undefined
      ? found
      : found.filter((d) => d.filename.includes(input.filenameContains!))
  return {
    downloads: matching.slice(0, limit).map((d) => ({
      id: d.id,
      url: d.finalUrl || d.url,
      filename: d.filename,
      state: d.state,
      mime: d.mime,
      bytesReceived: d.bytesReceived,
      totalBytes: d.totalBytes,
      startTime: d.startTime,
      ...(d.endTime ? { endTime: d.endTime } : {}),
      ...(d.error ? { error: d.error } : {}),
    })),
  }
}

export const storageHandlers: Handlers<typeof defs> = {
  getCookies,
  localStorageGet,
  handleDialog,
  listDownloads,
}

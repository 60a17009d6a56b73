/** Cookies, web storage (one origin at a time), site data of one origin, dialogs, downloads. */
import { handleDialog } from './dialog'
import type { Handlers } from './context'
import type { storage as defs, BrowserToolInput } from '../../src/tools'
import type { BuiltinContext } from './context'
import { invalid, messageOf, notFound, sleep, timedOut } from './errors'
import type * as pageOps from './pageLibrary/ops'
import { runInPage } from './pageScript'
import { resolveTab } from './tabLookup'

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
  return runInPage<ReturnType<typeof pageOps.storage>>(tab, 'storage', {
    key: input.key,
    storage: input.storage ?? 'local',
  })
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

/**
 * Where a cookie write acts: the tab page's URL, or a `url` on the same origin (another path of it).
 * A write aimed at another origin is refused: it would reach a site no tab of this agent shows, past
 * the tab groups, the client's scope and what the approval named.
 */
async function cookieUrl(input: { tabId?: number; url?: string }): Promise<string> {
  const tab = await resolveTab(input.tabId)
  const url = tab.url ?? ''
  if (!/^https?:/i.test(url))
    throw invalid(
      `tab ${tab.id} shows ${url || 'no page'}, which has no cookies: open the site in a tab first`,
    )
  if (input.url === undefined) return url
  const origin = new URL(url).origin
  let asked: string
  try {
    asked = new URL(input.url).origin
  } catch {
    throw invalid('url is not a URL')
  }
  if (asked !== origin)
    throw invalid(
      `tab ${tab.id} shows ${origin}, not ${asked}: cookies are written only for the tab page's own origin; nothing was changed`,
    )
  return input.url
}

async function setCookie(input: In<'setCookie'>) {
  const url = await cookieUrl(input)
  const cookie = await chrome.cookies.set({
    url,
    name: input.name,
    value: input.value,
    ...(input.path !== undefined ? { path: input.path } : {}),
    ...(input.secure !== undefined ? { secure: input.secure } : {}),
    ...(input.httpOnly !== undefined ? { httpOnly: input.httpOnly } : {}),
    ...(input.sameSite !== undefined ? { sameSite: input.sameSite } : {}),
    ...(input.expiresInSeconds !== undefined
      ? { expirationDate: Math.floor(Date.now() / 1000) + input.expiresInSeconds }
      : {}),
  })
  if (!cookie)
    throw invalid(`Chrome refused the cookie ${input.name} for ${url} (a secure cookie needs https)`)
  return {
    url,
    name: cookie.name,
    domain: cookie.domain,
    path: cookie.path,
    secure: cookie.secure,
    httpOnly: cookie.httpOnly,
    sameSite: cookie.sameSite,
    ...(cookie.expirationDate !== undefined
      ? { expires: new Date(cookie.expirationDate * 1000).toISOString() }
      : {}),
  }
}

async function deleteCookie(input: In<'deleteCookie'>) {
  const url = await cookieUrl(input)
  const removed = await chrome.cookies.remove({ url, name: input.name })
  const still = await chrome.cookies.get({ url, name: input.name })
  return { url, name: input.name, deleted: removed !== null && still === null }
}

/** What a web storage write reports, by action. */
type Written = ReturnType<typeof pageOps.storageWrite>

/** Writes into the tab's own document; the page op refuses if the tab moved to another origin since. */
const storageWrite = async <T extends Written>(
  tabId: number | undefined,
  args: { storage?: 'local' | 'session'; action: string; key?: string; value?: string },
) => {
  const tab = await resolveTab(tabId)
  let origin: string | undefined
  try {
    origin = new URL(tab.url ?? '').origin
  } catch {
    origin = undefined
  }
  return runInPage<T>(tab, 'storageWrite', {
    ...args,
    storage: args.storage ?? 'local',
    ...(origin && origin !== 'null' ? { origin } : {}),
  })
}

const storageSet = (input: In<'storageSet'>) =>
  storageWrite<Exclude<Written, { removed: number } | { existed: boolean }>>(input.tabId, {
    storage: input.storage,
    action: 'set',
    key: input.key,
    value: input.value,
  })
const storageRemove = (input: In<'storageRemove'>) =>
  storageWrite<Extract<Written, { existed: boolean }>>(input.tabId, {
    storage: input.storage,
    action: 'remove',
    key: input.key,
  })
const storageClear = (input: In<'storageClear'>) =>
  storageWrite<Extract<Written, { removed: number }>>(input.tabId, {
    storage: input.storage,
    action: 'clear',
  })

/** One origin only, named twice (the tab shows it and the call repeats it), so a wrong tab clears nothing. */
async function clearSiteData(input: In<'clearSiteData'>) {
  const tab = await resolveTab(input.tabId)
  let origin: string
  try {
    origin = new URL(tab.url ?? '').origin
  } catch {
    origin = 'null'
  }
  if (!/^https?:/.test(origin))
    throw invalid(`tab ${tab.id} shows no http(s) page whose data could be cleared`)
  if (origin !== input.origin)
    throw invalid(`tab ${tab.id} shows ${origin}, not ${input.origin}: nothing was cleared`)
  const cleared = [
    'cookies',
    'localStorage',
    'indexedDB',
    'cacheStorage',
    'serviceWorkers',
    'fileSystems',
    'webSQL',
  ]
  await chrome.browsingData.remove({ origins: [origin] }, Object.fromEntries(cleared.map((k) => [k, true])))
  // sessionStorage is not part of browsingData: clear the page's own.
  await runInPage(tab, 'storageWrite', { storage: 'session', action: 'clear', origin }).catch(() => undefined)
  return { origin, cleared: [...cleared, 'sessionStorage'] }
}

const downloadView = (d: chrome.downloads.DownloadItem) => ({
  id: d.id,
  url: d.finalUrl || d.url,
  filename: d.filename,
  state: d.state,
  bytesReceived: d.bytesReceived,
  totalBytes: d.totalBytes,
  ...(d.error ? { error: d.error } : {}),
})

async function waitForEnd(id: number, timeoutMs: number, ctx: BuiltinContext) {
  const deadline = Date.now() + timeoutMs
  for (let tick = 0; ; tick++) {
    const [item] = await chrome.downloads.search({ id })
    if (!item) throw notFound(`no download with id ${id}`)
    if (item.state !== 'in_progress') return downloadView(item)
    if (Date.now() > deadline)
      throw timedOut(
        `download ${id} still running after ${timeoutMs} ms: check it with browser_download_status`,
      )
    if (tick % 20 === 0)
      ctx.progress(item.bytesReceived, item.totalBytes > 0 ? item.totalBytes : undefined, 'downloading')
    await sleep(100)
  }
}

async function download(input: In<'download'>, ctx: BuiltinContext) {
  if (!/^https?:/i.test(input.url)) throw invalid('only http(s) URLs can be downloaded')
  let id: number
  try {
    id = await chrome.downloads.download({
      url: input.url,
      conflictAction: 'uniquify',
      ...(input.filename ? { filename: input.filename } : {}),
    })
  } catch (err) {
    throw invalid(`Chrome refused the download: ${messageOf(err)}`)
  }
  return waitForEnd(id, input.timeoutMs ?? 30_000, ctx)
}

async function waitForDownload(input: In<'waitForDownload'>, ctx: BuiltinContext) {
  const since = input.sinceMs ?? Date.now() - 10_000
  const timeoutMs = input.timeoutMs ?? 30_000
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [latest] = await chrome.downloads.search({
      startedAfter: new Date(since - 1).toISOString(),
      orderBy: ['-startTime'],
      limit: 1,
    })
    if (latest) return waitForEnd(latest.id, Math.max(100, deadline - Date.now()), ctx)
    if (Date.now() > deadline)
      throw timedOut(`no download started since ${new Date(since).toISOString()} within ${timeoutMs} ms`)
    await sleep(100)
  }
}

async function downloadStatus(input: In<'downloadStatus'>) {
  const [item] = await chrome.downloads.search({ id: input.id })
  if (!item) throw notFound(`no download with id ${input.id}: see browser_list_downloads`)
  return downloadView(item)
}

export const storageHandlers: Handlers<typeof defs> = {
  getCookies,
  localStorageGet,
  handleDialog,
  listDownloads,
  setCookie,
  deleteCookie,
  storageSet,
  storageRemove,
  storageClear,
  clearSiteData,
  download,
  waitForDownload,
  downloadStatus,
}

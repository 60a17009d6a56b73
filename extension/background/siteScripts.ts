/**
 * siteContent.js in pages, for the sites the user turned on and for no other: one dynamic content
 * script registration whose matches are exactly those origins (every frame, isolated world, from the
 * start of each document), an injection into frames of a newly turned-on origin that are already
 * open, and a `stop` to frames of an origin turned off (its registration is gone for new documents).
 */
import type { SiteToolsCommand } from '../shared/siteToolTypes'

const SCRIPT_ID = 'bridge-site-tools'
const SCRIPT_FILE = 'siteContent.js'

/** `https://a.example:8443` -> `https://a.example:8443/*` (Chrome match patterns take a port). */
const patternOf = (origin: string): string => `${origin}/*`

/** The http(s) origin of a URL, or undefined. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    const { protocol, origin } = new URL(url)
    return protocol === 'http:' || protocol === 'https:' ? origin : undefined
  } catch {
    return undefined
  }
}

/**
 * Registers the script for `enabled`, starts it in open frames of `added` origins and stops it in
 * open frames of `removed` ones (`stopped` hears each such frame).
 */
export async function updateSiteScripts(
  enabled: ReadonlySet<string>,
  added: readonly string[],
  removed: readonly string[],
  stopped: (tabId: number, frameId: number) => void,
): Promise<void> {
  const existing = await chrome.scripting.getRegisteredContentScripts({ ids: [SCRIPT_ID] })
  if (existing.length) await chrome.scripting.unregisterContentScripts({ ids: [SCRIPT_ID] })
  if (enabled.size > 0)
    await chrome.scripting.registerContentScripts([
      {
        id: SCRIPT_ID,
        matches: [...enabled].map(patternOf),
        js: [SCRIPT_FILE],
        runAt: 'document_start',
        allFrames: true,
        world: 'ISOLATED',
        persistAcrossSessions: false,
      },
    ])
  for (const tab of await chrome.tabs.query({})) {
    if (tab.id === undefined) continue
    const frames = (await chrome.webNavigation.getAllFrames({ tabId: tab.id }).catch(() => null)) ?? []
    const start = frames.filter((f) => added.includes(originOf(f.url) ?? '')).map((f) => f.frameId)
    const stop = frames.filter((f) => removed.includes(originOf(f.url) ?? '')).map((f) => f.frameId)
    if (start.length)
      await chrome.scripting
        .executeScript({
          target: { tabId: tab.id, frameIds: start },
          files: [SCRIPT_FILE],
          world: 'ISOLATED',
        })
        .catch(() => undefined)
    for (const frameId of stop) {
      stopped(tab.id, frameId)
      chrome.tabs
        .sendMessage(tab.id, { siteTools: 'stop' } satisfies SiteToolsCommand, { frameId })
        .catch(() => undefined)
    }
  }
}

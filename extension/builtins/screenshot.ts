/** browser_screenshot through Page.captureScreenshot: works for the visible area, the full page or one element. */
import type { devtools as defs, BrowserToolInput } from '../../src/tools'
import { withDebugger } from './debuggerSession'
import { isRestrictedUrl, restricted, withTimeout } from './errors'
import { runInPage } from './pageScript'
import { resolveTab, tabIdOf } from './tabs'

type In = BrowserToolInput<typeof defs.screenshot>

const MAX_FULL_PAGE_HEIGHT = 16_384
const CAPTURE_TIMEOUT_MS = 10_000

export interface ImageOutput {
  type: 'image'
  data: string
  mimeType: 'image/png'
}

export async function screenshot(input: In): Promise<ImageOutput> {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  let clip: { x: number; y: number; width: number; height: number; scale: number } | undefined
  if (input.ref !== undefined || input.selector !== undefined) {
    const where = await runInPage<{ rect: { x: number; y: number; width: number; height: number } }>(
      tab,
      'locate',
      {
        ref: input.ref,
        selector: input.selector,
      },
    )
    clip = { ...where.rect, scale: 1 }
  }
  const data = await withDebugger(tabId, tab.url, async (cdp) => {
    const params: Record<string, unknown> = { format: 'png' }
    if (clip) params.clip = clip
    if (input.fullPage && !clip) {
      const metrics = await cdp.send<{ cssContentSize: { width: number; height: number } }>(
        'Page.getLayoutMetrics',
      )
      const { width, height } = metrics.cssContentSize
      params.clip = {
        x: 0,
        y: 0,
        width: Math.ceil(width),
        height: Math.min(Math.ceil(height), MAX_FULL_PAGE_HEIGHT),
        scale: 1,
      }
      params.captureBeyondViewport = true
    }
    const shot = await withTimeout(
      cdp.send<{ data: string }>('Page.captureScreenshot', params),
      CAPTURE_TIMEOUT_MS,
      `tab ${tabId} did not render a screenshot within ${CAPTURE_TIMEOUT_MS / 1000} s (a hidden or minimized window may not paint): focus it with browser_focus_tab and retry`,
    )
    return shot.data
  })
  return { type: 'image', data, mimeType: 'image/png' }
}

/**
 * browser_screenshot through Page.captureScreenshot (visible area, full page or one element, frames
 * included), scaled so that no side exceeds maxSide; browser_save_pdf through Page.printToPDF.
 */
import type { devtools as defs, BrowserToolInput } from '../../src/tools'
import { withDebugger } from './debuggerSession'
import { invalid, isRestrictedUrl, restricted, withTimeout } from './errors'
import { locateElement } from './frames'
import { resolveTab, tabIdOf } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const MAX_FULL_PAGE_HEIGHT = 16_384
const CAPTURE_TIMEOUT_MS = 10_000
const DEFAULT_MAX_SIDE = 1568

export interface ImageOutput {
  type: 'image'
  data: string
  mimeType: string
}

interface Clip {
  x: number
  y: number
  width: number
  height: number
}

export async function screenshot(input: In<'screenshot'>): Promise<ImageOutput> {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  const format = input.format ?? 'png'
  if (input.quality !== undefined && format === 'png')
    throw invalid('quality applies to jpeg and webp only: set format too')
  let clip: Clip | undefined
  if (input.ref !== undefined || input.selector !== undefined)
    clip = (await locateElement(tab, { ref: input.ref, selector: input.selector })).rect
  const data = await withDebugger(tabId, tab.url, async (cdp) => {
    const metrics = await cdp.send<{
      cssContentSize: { width: number; height: number }
      cssVisualViewport: { pageX: number; pageY: number; clientWidth: number; clientHeight: number }
      visualViewport: { clientWidth: number }
    }>('Page.getLayoutMetrics')
    const pixelRatio = metrics.visualViewport.clientWidth / Math.max(metrics.cssVisualViewport.clientWidth, 1)
    const params: Record<string, unknown> = { format }
    if (input.quality !== undefined) params.quality = input.quality
    if (!clip && input.fullPage) {
      const { width, height } = metrics.cssContentSize
      clip = {
        x: 0,
        y: 0,
        width: Math.ceil(width),
        height: Math.min(Math.ceil(height), MAX_FULL_PAGE_HEIGHT),
      }
      params.captureBeyondViewport = true
    }
    const view = metrics.cssVisualViewport
    const area = clip ?? { x: view.pageX, y: view.pageY, width: view.clientWidth, height: view.clientHeight }
    // Agents pay for pixels: the longest side is held to maxSide unless they ask for more.
    const longest = Math.max(area.width, area.height) * (pixelRatio || 1)
    const scale = Math.min(1, (input.maxSide ?? DEFAULT_MAX_SIDE) / Math.max(longest, 1))
    params.clip = { ...area, scale }
    const shot = await withTimeout(
      cdp.send<{ data: string }>('Page.captureScreenshot', params),
      CAPTURE_TIMEOUT_MS,
      `tab ${tabId} did not render a screenshot within ${CAPTURE_TIMEOUT_MS / 1000} s (a hidden or minimized window may not paint): focus it with browser_focus_tab and retry`,
    )
    return shot.data
  })
  return { type: 'image', data, mimeType: `image/${format}` }
}

export async function savePdf(input: In<'savePdf'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  const data = await withDebugger(tabId, tab.url, async (cdp) => {
    const pdf = await withTimeout(
      cdp.send<{ data: string }>('Page.printToPDF', {
        landscape: input.landscape ?? false,
        printBackground: input.printBackground ?? true,
      }),
      30_000,
      `tab ${tabId} did not print within 30 s`,
    )
    return pdf.data
  })
  const title =
    (tab.title ?? '')
      .replace(/[^\w .()-]+/g, ' ')
      .trim()
      .slice(0, 80) || 'page'
  const filename = input.filename ?? `${title}.pdf`
  const downloadId = await chrome.downloads.download({
    url: `data:application/pdf;base64,${data}`,
    filename,
    conflictAction: 'uniquify',
  })
  const [item] = await waitForDownloadEnd(downloadId, 30_000)
  return {
    downloadId,
    filename: item?.filename ?? filename,
    bytes: Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0),
  }
}

async function waitForDownloadEnd(id: number, timeoutMs: number): Promise<chrome.downloads.DownloadItem[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const items = await chrome.downloads.search({ id })
    if (items[0]?.state !== 'in_progress' || Date.now() > deadline) return items
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

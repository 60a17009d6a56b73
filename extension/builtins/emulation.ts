/**
 * Handlers of src/tools/emulation.ts. Emulation lives in the tab's debugger session, so each setting
 * holds the session ('emulation') until browser_clear_emulation lets it go.
 */
import type { emulation as defs, BrowserToolInput } from '../../src/tools'
import type { Handlers } from './context'
import { holdDebugger, releaseDebugger, withDebugger, type Cdp } from './debuggerSession'
import { invalid, isRestrictedUrl, restricted } from './errors'
import { resolveTab, tabIdOf } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const HOLD = 'emulation'
const MOBILE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36'
const IOS_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

const DEVICES = {
  'iphone-15': { width: 393, height: 852, deviceScaleFactor: 3, mobile: true, userAgent: IOS_UA },
  'pixel-8': { width: 412, height: 915, deviceScaleFactor: 2.625, mobile: true, userAgent: MOBILE_UA },
  ipad: {
    width: 820,
    height: 1180,
    deviceScaleFactor: 2,
    mobile: true,
    userAgent: IOS_UA.replace('iPhone', 'iPad'),
  },
  'desktop-hd': { width: 1920, height: 1080, deviceScaleFactor: 1, mobile: false, userAgent: undefined },
} as const

async function emulating(tabId: number | undefined): Promise<{ cdp: Cdp; tabId: number }> {
  const tab = await resolveTab(tabId)
  const id = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(id, tab.url)
  return { cdp: await holdDebugger(id, tab.url, HOLD), tabId: id }
}

async function setViewport(input: In<'setViewport'>) {
  const device = input.device ? DEVICES[input.device] : undefined
  const width = input.width ?? device?.width
  const height = input.height ?? device?.height
  if (width === undefined || height === undefined) throw invalid('give a device, or width and height')
  const deviceScaleFactor = input.deviceScaleFactor ?? device?.deviceScaleFactor ?? 1
  const mobile = input.mobile ?? device?.mobile ?? false
  const { cdp } = await emulating(input.tabId)
  await cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor, mobile })
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: mobile, maxTouchPoints: mobile ? 5 : 1 })
  if (device?.userAgent) await cdp.send('Emulation.setUserAgentOverride', { userAgent: device.userAgent })
  return {
    width,
    height,
    deviceScaleFactor,
    mobile,
    ...(device?.userAgent ? { userAgent: device.userAgent } : {}),
  }
}

async function setUserAgent(input: In<'setUserAgent'>) {
  const { cdp } = await emulating(input.tabId)
  await cdp.send('Emulation.setUserAgentOverride', { userAgent: input.userAgent })
  return { userAgent: input.userAgent }
}

async function emulateMedia(input: In<'emulateMedia'>) {
  const features: Record<string, string> = { ...input.features }
  if (input.colorScheme) features['prefers-color-scheme'] = input.colorScheme
  if (input.reducedMotion) features['prefers-reduced-motion'] = input.reducedMotion
  const { cdp } = await emulating(input.tabId)
  await cdp.send('Emulation.setEmulatedMedia', {
    media: input.media ?? '',
    features: Object.entries(features).map(([name, value]) => ({ name, value })),
  })
  return { media: input.media ?? null, features }
}

async function setGeolocation(input: In<'setGeolocation'>) {
  const accuracy = input.accuracy ?? 10
  const { cdp } = await emulating(input.tabId)
  await cdp.send('Emulation.setGeolocationOverride', {
    latitude: input.latitude,
    longitude: input.longitude,
    accuracy,
  })
  return { latitude: input.latitude, longitude: input.longitude, accuracy }
}

async function throttleCpu(input: In<'throttleCpu'>) {
  const { cdp } = await emulating(input.tabId)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: input.rate })
  return { rate: input.rate }
}

async function clearEmulation(input: In<'clearEmulation'>) {
  const tab = await resolveTab(input.tabId)
  const tabId = tabIdOf(tab)
  if (isRestrictedUrl(tab.url)) throw restricted(tabId, tab.url)
  await withDebugger(tabId, tab.url, async (cdp) => {
    for (const [method, params] of [
      ['Emulation.clearDeviceMetricsOverride', {}],
      ['Emulation.setTouchEmulationEnabled', { enabled: false }],
      ['Emulation.setUserAgentOverride', { userAgent: '' }],
      ['Emulation.setEmulatedMedia', { media: '', features: [] }],
      ['Emulation.clearGeolocationOverride', {}],
      ['Emulation.setCPUThrottlingRate', { rate: 1 }],
    ] as const)
      await cdp.send(method, params).catch(() => undefined)
  })
  releaseDebugger(tabId, HOLD)
  return { cleared: true as const }
}

async function resizeWindow(input: In<'resizeWindow'>) {
  const tab = await resolveTab(input.tabId)
  const bounds = { width: input.width, height: input.height, left: input.left, top: input.top }
  const sized = Object.values(bounds).some((v) => v !== undefined)
  if (sized && input.state !== undefined && input.state !== 'normal')
    throw invalid(`a ${input.state} window has no size of its own: give state or a size`)
  const update: chrome.windows.UpdateInfo = Object.fromEntries(
    Object.entries({ ...bounds, state: input.state ?? (sized ? 'normal' : undefined) }).filter(
      ([, v]) => v !== undefined,
    ),
  )
  const win = await chrome.windows.update(tab.windowId, update)
  return {
    windowId: win.id ?? tab.windowId,
    width: win.width,
    height: win.height,
    left: win.left,
    top: win.top,
    state: win.state,
  }
}

export const emulationHandlers: Handlers<typeof defs> = {
  setViewport,
  setUserAgent,
  emulateMedia,
  setGeolocation,
  throttleCpu,
  clearEmulation,
  resizeWindow,
}

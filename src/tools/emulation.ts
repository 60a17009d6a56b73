/** Emulation of a tab (viewport, device, user agent, media, location, CPU) and the window size. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { TabIdField, StringEnum, OrNull, StringMap } from './common'

const HELD = 'Lasts until browser_clear_emulation; a reload may be needed.'

export const setViewport = defineBrowserTool({
  name: 'browser_set_viewport',
  pageText: false,
  displayName: 'Set viewport',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: `Emulate a viewport size (and device pixel ratio, mobile, touch) or a named device. ${HELD} Returns { width, height, deviceScaleFactor, mobile }.`,
  input: Type.Object({
    tabId: TabIdField,
    device: Type.Optional(
      StringEnum(['iphone-15', 'pixel-8', 'ipad', 'desktop-hd'], { description: 'A named device.' }),
    ),
    width: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000, description: 'CSS pixels.' })),
    height: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000, description: 'CSS pixels.' })),
    deviceScaleFactor: Type.Optional(Type.Number({ minimum: 0.5, maximum: 4, description: 'Pixel ratio.' })),
    mobile: Type.Optional(Type.Boolean({ description: 'Mobile viewport and touch.' })),
  }),
  output: Type.Object({
    width: Type.Integer(),
    height: Type.Integer(),
    deviceScaleFactor: Type.Number(),
    mobile: Type.Boolean(),
    userAgent: Type.Optional(Type.String()),
  }),
})

export const setUserAgent = defineBrowserTool({
  name: 'browser_set_user_agent',
  pageText: false,
  displayName: 'Set user agent',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: `Send another User-Agent (header and navigator.userAgent) from a tab. ${HELD} Returns { userAgent }.`,
  input: Type.Object({
    tabId: TabIdField,
    userAgent: Type.String({ minLength: 1, maxLength: 1000, description: 'The User-Agent.' }),
  }),
  output: Type.Object({ userAgent: Type.String() }),
})

export const emulateMedia = defineBrowserTool({
  name: 'browser_emulate_media',
  pageText: false,
  displayName: 'Emulate media',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: `Emulate CSS media: type (screen/print), colour scheme, reduced motion, other media features. ${HELD} Returns { media, features }.`,
  input: Type.Object({
    tabId: TabIdField,
    media: Type.Optional(StringEnum(['screen', 'print'], { description: 'Media type.' })),
    colorScheme: Type.Optional(StringEnum(['light', 'dark'], { description: 'prefers-color-scheme.' })),
    reducedMotion: Type.Optional(
      StringEnum(['reduce', 'no-preference'], {
        description: 'prefers-reduced-motion.',
      }),
    ),
    features: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z-]{1,50}$' }), Type.String({ maxLength: 50 }), {
        description: 'e.g. { "forced-colors": "active" }.',
      }),
    ),
  }),
  output: Type.Object({ media: OrNull('string'), features: StringMap() }),
})

export const setGeolocation = defineBrowserTool({
  name: 'browser_set_geolocation',
  pageText: false,
  displayName: 'Set geolocation',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: `Report this position to the page's geolocation API (the page still needs the user's location permission). ${HELD} Returns { latitude, longitude, accuracy }.`,
  input: Type.Object({
    tabId: TabIdField,
    latitude: Type.Number({ minimum: -90, maximum: 90, description: 'Degrees.' }),
    longitude: Type.Number({ minimum: -180, maximum: 180, description: 'Degrees.' }),
    accuracy: Type.Optional(
      Type.Number({ minimum: 0, maximum: 100_000, default: 10, description: 'Metres.' }),
    ),
  }),
  output: Type.Object({ latitude: Type.Number(), longitude: Type.Number(), accuracy: Type.Number() }),
})

export const throttleCpu = defineBrowserTool({
  name: 'browser_throttle_cpu',
  pageText: false,
  displayName: 'Throttle CPU',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description: `Slow the tab's CPU down by a factor (1 = normal). ${HELD} Returns { rate }.`,
  input: Type.Object({
    tabId: TabIdField,
    rate: Type.Number({ minimum: 1, maximum: 20, description: 'Slowdown factor.' }),
  }),
  output: Type.Object({ rate: Type.Number() }),
})

export const clearEmulation = defineBrowserTool({
  name: 'browser_clear_emulation',
  pageText: false,
  displayName: 'Clear emulation',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    'End every emulation of a tab (viewport, user agent, media, geolocation, CPU) and release the debugger unless a capture holds it. Returns { cleared: true }.',
  input: Type.Object({ tabId: TabIdField }),
  output: Type.Object({ cleared: Type.Literal(true) }),
})

export const resizeWindow = defineBrowserTool({
  name: 'browser_resize_window',
  pageText: false,
  displayName: 'Resize window',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    "Resize or move a tab's window, or set its state. Returns { windowId, width, height, left, top, state }.",
  input: Type.Object({
    tabId: TabIdField,
    width: Type.Optional(Type.Integer({ minimum: 200, maximum: 10_000, description: 'Pixels.' })),
    height: Type.Optional(Type.Integer({ minimum: 200, maximum: 10_000, description: 'Pixels.' })),
    left: Type.Optional(Type.Integer({ minimum: -10_000, maximum: 10_000, description: 'Screen x.' })),
    top: Type.Optional(Type.Integer({ minimum: -10_000, maximum: 10_000, description: 'Screen y.' })),
    state: Type.Optional(
      StringEnum(['normal', 'maximized', 'minimized', 'fullscreen'], { description: 'Window state.' }),
    ),
  }),
  output: Type.Object({
    windowId: Type.Integer(),
    width: Type.Optional(Type.Integer()),
    height: Type.Optional(Type.Integer()),
    left: Type.Optional(Type.Integer()),
    top: Type.Optional(Type.Integer()),
    state: Type.Optional(Type.String()),
  }),
})

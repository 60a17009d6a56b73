/** Coordinate actions for canvases and maps: trusted mouse input at x,y of the viewport. */
import { Type } from '@sinclair/typebox'
import { defineBrowserTool } from './define'
import { TabIdField, StringEnum, PointOutput } from './common'

const X = Type.Number({ minimum: 0, description: 'Viewport CSS pixels.' })
const Y = Type.Number({ minimum: 0, description: 'Viewport CSS pixels.' })
const Button = Type.Optional(
  StringEnum(['left', 'right', 'middle'], { default: 'left', description: 'Button.' }),
)
const AT = 'Returns { x, y, target }: the element hit.'

export const mouseClickXy = defineBrowserTool({
  name: 'browser_mouse_click_xy',
  displayName: 'Click at point',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description: `Trusted click at viewport coordinates (e.g. on a canvas; see browser_screenshot). ${AT}`,
  input: Type.Object({
    tabId: TabIdField,
    x: X,
    y: Y,
    button: Button,
    clickCount: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3, default: 1, description: '2 for a double click.' }),
    ),
  }),
  output: PointOutput,
})

export const mouseMoveXy = defineBrowserTool({
  name: 'browser_mouse_move_xy',
  displayName: 'Move mouse',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: `Move the mouse to viewport coordinates (trusted). ${AT}`,
  input: Type.Object({ tabId: TabIdField, x: X, y: Y }),
  output: PointOutput,
})

export const mouseDown = defineBrowserTool({
  name: 'browser_mouse_down',
  displayName: 'Mouse down',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: `Press a mouse button at x,y (trusted) and keep it pressed until browser_mouse_up. ${AT}`,
  input: Type.Object({ tabId: TabIdField, x: X, y: Y, button: Button }),
  output: PointOutput,
})

export const mouseUp = defineBrowserTool({
  name: 'browser_mouse_up',
  displayName: 'Mouse up',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  description: `Release a mouse button at x,y (trusted). ${AT}`,
  input: Type.Object({ tabId: TabIdField, x: X, y: Y, button: Button }),
  output: PointOutput,
})

export const mouseWheel = defineBrowserTool({
  name: 'browser_mouse_wheel',
  displayName: 'Mouse wheel',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  description: `Turn the mouse wheel at x,y (trusted). ${AT}`,
  input: Type.Object({
    tabId: TabIdField,
    x: X,
    y: Y,
    deltaX: Type.Optional(Type.Number({ default: 0, description: 'Pixels right.' })),
    deltaY: Type.Optional(Type.Number({ default: 0, description: 'Pixels down.' })),
  }),
  output: PointOutput,
})

export const mouseDragXy = defineBrowserTool({
  name: 'browser_mouse_drag_xy',
  displayName: 'Drag between points',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  description:
    'Press at fromX,fromY, move to toX,toY and release (trusted), e.g. to draw or pan. Returns { from, to, target }.',
  input: Type.Object({
    tabId: TabIdField,
    fromX: X,
    fromY: Y,
    toX: X,
    toY: Y,
    steps: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Intermediate moves.' }),
    ),
  }),
  output: Type.Object({
    from: Type.Object({ x: Type.Number(), y: Type.Number() }),
    to: Type.Object({ x: Type.Number(), y: Type.Number() }),
    target: PointOutput.properties.target,
  }),
})

/** Handlers of src/tools/mouse.ts: trusted mouse input at viewport coordinates. */
import type { mouse as defs, BrowserToolInput } from '../../src/tools'
import type { Handlers } from './context'
import { withDebugger, type Cdp } from './debuggerSession'
import { runInPage } from './pageScript'
import { resolveTab, tabIdOf } from './tabLookup'
import { heldModifiers, mouseClick, mouseMove } from './trustedInput'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

const BUTTON_BITS = { left: 1, right: 2, middle: 4 } as const

async function at<T>(
  tabId: number | undefined,
  x: number,
  y: number,
  act: (cdp: Cdp, modifiers: number) => Promise<T>,
) {
  const tab = await resolveTab(tabId)
  const id = tabIdOf(tab)
  await withDebugger(id, tab.url, (cdp) => act(cdp, heldModifiers(id).bits))
  const { target } = await runInPage<{ target: string | null }>(tab, 'describeAt', { x, y }).catch(() => ({
    target: null,
  }))
  return { x, y, target }
}

const mouseClickXy = (input: In<'mouseClickXy'>) =>
  at(input.tabId, input.x, input.y, (cdp, modifiers) =>
    mouseClick(cdp, input.x, input.y, {
      button: input.button ?? 'left',
      clickCount: input.clickCount ?? 1,
      modifiers,
    }),
  )

const mouseMoveXy = (input: In<'mouseMoveXy'>) =>
  at(input.tabId, input.x, input.y, (cdp, modifiers) => mouseMove(cdp, input.x, input.y, modifiers))

function press(type: 'mousePressed' | 'mouseReleased', input: In<'mouseDown'>) {
  const button = input.button ?? 'left'
  return at(input.tabId, input.x, input.y, async (cdp, modifiers) => {
    await mouseMove(cdp, input.x, input.y, modifiers)
    await cdp.send('Input.dispatchMouseEvent', {
      type,
      x: input.x,
      y: input.y,
      button,
      buttons: type === 'mousePressed' ? BUTTON_BITS[button] : 0,
      clickCount: 1,
      modifiers,
    })
  })
}

const mouseDown = (input: In<'mouseDown'>) => press('mousePressed', input)
const mouseUp = (input: In<'mouseUp'>) => press('mouseReleased', input)

const mouseWheel = (input: In<'mouseWheel'>) =>
  at(input.tabId, input.x, input.y, (cdp, modifiers) =>
    cdp.send('Input.dispatchMouseEvent', {
      type: 'mouseWheel',
      x: input.x,
      y: input.y,
      deltaX: input.deltaX ?? 0,
      deltaY: input.deltaY ?? 0,
      modifiers,
    }),
  )

async function mouseDragXy(input: In<'mouseDragXy'>) {
  const steps = input.steps ?? 10
  const result = await at(input.tabId, input.toX, input.toY, async (cdp, modifiers) => {
    await mouseMove(cdp, input.fromX, input.fromY, modifiers)
    const base = { button: 'left', clickCount: 1, modifiers }
    await cdp.send('Input.dispatchMouseEvent', {
      ...base,
      type: 'mousePressed',
      x: input.fromX,
      y: input.fromY,
      buttons: 1,
    })
    for (let i = 1; i <= steps; i++)
      await cdp.send('Input.dispatchMouseEvent', {
        type: 'mouseMoved',
        x: input.fromX + ((input.toX - input.fromX) * i) / steps,
        y: input.fromY + ((input.toY - input.fromY) * i) / steps,
        button: 'left',
        buttons: 1,
        modifiers,
      })
    await cdp.send('Input.dispatchMouseEvent', {
      ...base,
      type: 'mouseReleased',
      x: input.toX,
      y: input.toY,
      buttons: 0,
    })
  })
  return {
    from: { x: input.fromX, y: input.fromY },
    to: { x: input.toX, y: input.toY },
    target: result.target,
  }
}

export const mouseHandlers: Handlers<typeof defs> = {
  mouseClickXy,
  mouseMoveXy,
  mouseDown,
  mouseUp,
  mouseWheel,
  mouseDragXy,
}

/** Real user input through the DevTools protocol's Input domain. */
import type { Cdp } from './debuggerSession'
import { keyDefinition, MODIFIER_BITS, parseCombination } from './keys'

export type MouseButton = 'left' | 'right' | 'middle'

export const modifierBits = (modifiers: readonly string[] = []): number =>
  modifiers.reduce((bits, m) => bits | (MODIFIER_BITS[m] ?? 0), 0)

/** Modifier keys held down per tab by browser_key_down, applied to the mouse tools' events. */
const held = new Map<number, { bits: number }>()
export function heldModifiers(tabId: number): { bits: number } {
  let entry = held.get(tabId)
  if (!entry) held.set(tabId, (entry = { bits: 0 }))
  return entry
}

export async function mouseMove(cdp: Cdp, x: number, y: number, modifiers = 0): Promise<void> {
  await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers, button: 'none' })
}

export async function mouseClick(
  cdp: Cdp,
  x: number,
  y: number,
  opts: { button?: MouseButton; clickCount?: number; modifiers?: number } = {},
): Promise<void> {
  const button = opts.button ?? 'left'
  const modifiers = opts.modifiers ?? 0
  await mouseMove(cdp, x, y, modifiers)
  for (let count = 1; count <= (opts.clickCount ?? 1); count++) {
    await cdp.send('Input.dispatchMouseEvent', {
      type: 'mousePressed',
      x,
      y,
      button,
      clickCount: count,
      modifiers,
    })
    await cdp.send('Input.dispatchMouseEvent', {
      type: 'mouseReleased',
      x,
      y,
      button,
      clickCount: count,
      modifiers,
    })
  }
}

/** Presses a key combination like "Control+a" or "Enter". */
export async function pressCombination(cdp: Cdp, combo: string): Promise<void> {
  const { modifiers, key } = parseCombination(combo)
  const main = keyDefinition(key)
  let bits = 0
  for (const m of modifiers) {
    const def = keyDefinition(m)
    bits |= MODIFIER_BITS[m] ?? 0
    await cdp.send('Input.dispatchKeyEvent', {
      type: 'rawKeyDown',
      modifiers: bits,
      key: def.key,
      code: def.code,
      windowsVirtualKeyCode: def.keyCode,
      location: def.location ?? 0,
    })
  }
  // Text is produced only without command modifiers (Control+a selects, it does not type "a").
  const text =
    bits & (MODIFIER_BITS.Control! | MODIFIER_BITS.Meta! | MODIFIER_BITS.Alt!) ? undefined : main.text
  const shifted = text && bits & MODIFIER_BITS.Shift! ? text.toUpperCase() : text
  await cdp.send('Input.dispatchKeyEvent', {
    type: shifted ? 'keyDown' : 'rawKeyDown',
    modifiers: bits,
    key: shifted && shifted.length === 1 ? shifted : main.key,
    code: main.code,
    windowsVirtualKeyCode: main.keyCode,
    ...(shifted ? { text: shifted, unmodifiedText: main.text } : {}),
  })
  await cdp.send('Input.dispatchKeyEvent', {
    type: 'keyUp',
    modifiers: bits,
    key: main.key,
    code: main.code,
    windowsVirtualKeyCode: main.keyCode,
  })
  for (const m of [...modifiers].reverse()) {
    const def = keyDefinition(m)
    bits &= ~(MODIFIER_BITS[m] ?? 0)
    await cdp.send('Input.dispatchKeyEvent', {
      type: 'keyUp',
      modifiers: bits,
      key: def.key,
      code: def.code,
      windowsVirtualKeyCode: def.keyCode,
      location: def.location ?? 0,
    })
  }
}

export async function insertText(cdp: Cdp, text: string): Promise<void> {
  await cdp.send('Input.insertText', { text })
}

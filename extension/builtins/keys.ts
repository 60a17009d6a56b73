/** DOM key names to the fields Input.dispatchKeyEvent needs (US layout). */
import { invalid } from './errors'

export interface KeyDefinition {
  key: string
  code: string
  keyCode: number
  text?: string
  location?: number
}

const NAMED: Record<string, KeyDefinition> = {
  Enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  Backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  Insert: { key: 'Insert', code: 'Insert', keyCode: 45 },
  Home: { key: 'Home', code: 'Home', keyCode: 36 },
  End: { key: 'End', code: 'End', keyCode: 35 },
  PageUp: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  PageDown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  Space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  ' ': { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 },
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1 },
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1 },
}
for (let i = 1; i <= 12; i++) NAMED[`F${i}`] = { key: `F${i}`, code: `F${i}`, keyCode: 111 + i }

const ALIASES: Record<string, string> = {
  Esc: 'Escape',
  Return: 'Enter',
  Del: 'Delete',
  Up: 'ArrowUp',
  Down: 'ArrowDown',
  Left: 'ArrowLeft',
  Right: 'ArrowRight',
  Ctrl: 'Control',
  Cmd: 'Meta',
  Command: 'Meta',
  Option: 'Alt',
  Spacebar: 'Space',
}

const PUNCTUATION_CODES: Record<string, [string, number]> = {
  '-': ['Minus', 189],
  '=': ['Equal', 187],
  '[': ['BracketLeft', 219],
  ']': ['BracketRight', 221],
  '\\': ['Backslash', 220],
  ';': ['Semicolon', 186],
  "'": ['Quote', 222],
  ',': ['Comma', 188],
  '.': ['Period', 190],
  '/': ['Slash', 191],
  '`': ['Backquote', 192],
}

export function keyDefinition(name: string): KeyDefinition {
  const canonical = ALIASES[name] ?? name
  const named = NAMED[canonical]
  if (named) return named
  if ([...canonical].length !== 1)
    throw invalid(
      `unknown key ${JSON.stringify(name)}: use a DOM key name like Enter, Tab, Escape, ArrowDown, F5 or a single character`,
    )
  const ch = canonical
  if (/[a-z]/i.test(ch))
    return { key: ch, code: `Key${ch.toUpperCase()}`, keyCode: ch.toUpperCase().charCodeAt(0), text: ch }
  if (/[0-9]/.test(ch)) return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), text: ch }
  const punct = PUNCTUATION_CODES[ch]
  if (punct) return { key: ch, code: punct[0], keyCode: punct[1], text: ch }
  return { key: ch, code: '', keyCode: 0, text: ch }
}

export const MODIFIER_BITS: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 }

/** Splits "Control+Shift+a" into modifiers and the main key; "Control++" presses "+". */
export function parseCombination(combo: string): { modifiers: string[]; key: string } {
  const main = combo.endsWith('++') ? '+' : combo === '+' ? '+' : (combo.split('+').pop() ?? combo)
  const rest = combo.slice(0, combo.length - main.length).replace(/\+$/, '')
  const modifiers = rest ? rest.split('+').map((m) => ALIASES[m] ?? m) : []
  for (const m of modifiers)
    if (!(m in MODIFIER_BITS))
      throw invalid(`unknown modifier ${JSON.stringify(m)}: use Alt, Control, Meta or Shift`)
  return { modifiers, key: main }
}

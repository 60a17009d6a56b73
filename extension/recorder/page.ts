/**
 * A person's demonstration, in the page (`personRecorder.js`, injected into each frame of the tab the
 * side panel records, in the extension's isolated world). It listens to what the person does (clicks,
 * typing, selects, a few keys) and sends each act with its element's target signals, taken by the
 * agent recorder's own code (../builtins/pageLibrary/signals.ts), to the service worker
 * (./personRecorder.ts), which adds the page's settle-and-diff and keeps the steps.
 *
 * Only events the browser marks trusted count: a page's script can dispatch look-alike clicks and
 * input events, but not trusted ones, and nothing here listens to the page's messages.
 */
import type { Target } from '../../src/protocol/workflow'
import { signalsOf } from '../builtins/pageLibrary/signals'

export interface PageAct {
  kind: 'click' | 'type' | 'select' | 'press'
  target?: Target
  text?: string
  /** type: Enter was pressed in the field at the end of the typing. */
  submit?: boolean
  values?: string[]
  key?: string
}

declare global {
  var __bridgePersonRecorder: { stop(): void } | undefined
}

const TEXT_TYPES = new Set(['text', 'email', 'password', 'search', 'tel', 'url', 'number', ''])
/** Keys a person presses that are steps of their own (outside typing): Enter submits, Escape closes. */
const KEYS = new Set(['Enter', 'Escape', 'ArrowUp', 'ArrowDown', 'PageUp', 'PageDown'])
/** What a click lands on, as a person means it: the control, not the icon or span inside it. */
const CLICKABLE =
  'a[href], button, input, select, textarea, label, summary, [role=button], [role=link], [role=menuitem], [role=tab], [role=option], [role=checkbox], [role=radio], [onclick]'

const isTextField = (el: EventTarget | null): el is HTMLInputElement | HTMLTextAreaElement =>
  el instanceof HTMLTextAreaElement ||
  (el instanceof HTMLInputElement && TEXT_TYPES.has(el.type.toLowerCase()))

function send(act: PageAct): void {
  try {
    void chrome.runtime.sendMessage({ personRecorder: act }).catch(() => undefined)
  } catch {
    // The extension was reloaded: this copy is an orphan and records nothing.
  }
}

function install(): { stop(): void } {
  /** Fields typed into since their value was last sent. */
  const dirty = new Set<HTMLInputElement | HTMLTextAreaElement>()
  let lastLabel: { label: HTMLLabelElement; at: number } | undefined
  /** When Enter was last recorded: the click the browser then makes on a form's button is its effect. */
  let lastEnter = -Infinity

  const flush = (field: HTMLInputElement | HTMLTextAreaElement, submit = false) => {
    if (!dirty.delete(field)) return false
    send({ kind: 'type', target: signalsOf(field), text: field.value, ...(submit ? { submit } : {}) })
    return true
  }
  const flushAll = (except?: Element) => {
    for (const field of [...dirty]) if (field !== except) flush(field)
  }

  const onInput = (e: Event) => {
    if (e.isTrusted && isTextField(e.target)) dirty.add(e.target)
  }
  const onChange = (e: Event) => {
    if (!e.isTrusted) return
    const el = e.target
    if (isTextField(el)) flush(el)
    else if (el instanceof HTMLSelectElement) {
      flushAll()
      send({
        kind: 'select',
        target: signalsOf(el),
        values: [...el.selectedOptions].map((o) => o.value),
      })
    }
  }
  const onKeyDown = (e: KeyboardEvent) => {
    if (!e.isTrusted || !KEYS.has(e.key) || e.isComposing) return
    const el = e.target instanceof Element ? e.target : null
    const inField = isTextField(el)
    // Enter and the arrows in a text area are typing; Enter on a button is its click.
    if (el instanceof HTMLTextAreaElement) return
    if (e.key === 'Enter' && !inField) return
    // The arrows in a list change its choice: the select step records it.
    if (el instanceof HTMLSelectElement) return
    if (e.key === 'Enter') lastEnter = e.timeStamp
    // Typing that ends with Enter is one step, as an agent's type with submit: its outcome is the Enter's.
    if (inField && flush(el, e.key === 'Enter')) {
      if (e.key === 'Enter') return
    } else if (!inField) flushAll()
    const focused = el && el !== document.body && el !== document.documentElement ? el : null
    send({ kind: 'press', key: e.key, ...(focused ? { target: signalsOf(focused) } : {}) })
  }
  const onClick = (e: MouseEvent) => {
    if (!e.isTrusted || e.button !== 0 || !(e.target instanceof Element)) return
    if (e.detail === 0 && e.timeStamp - lastEnter < 1000) return
    const el = e.target.closest(CLICKABLE) ?? e.target
    // A label's click is followed by the browser's own click on its control: one step, the label's.
    if (lastLabel && lastLabel.label.control === el && e.timeStamp - lastLabel.at < 500) return
    lastLabel = el instanceof HTMLLabelElement ? { label: el, at: e.timeStamp } : undefined
    // Focusing a field or opening a list is not a step: what is typed or chosen there is.
    if (isTextField(el) || el instanceof HTMLSelectElement || el instanceof HTMLOptionElement) return
    flushAll(el)
    send({ kind: 'click', target: signalsOf(el) })
  }

  const listeners: [string, (e: never) => void][] = [
    ['input', onInput],
    ['change', onChange],
    ['keydown', onKeyDown],
    ['click', onClick],
  ]
  for (const [type, fn] of listeners) window.addEventListener(type, fn as EventListener, true)
  return {
    stop() {
      for (const [type, fn] of listeners) window.removeEventListener(type, fn as EventListener, true)
      globalThis.__bridgePersonRecorder = undefined
    },
  }
}

globalThis.__bridgePersonRecorder ??= install()

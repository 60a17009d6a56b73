/** Handlers of src/tools/forms.ts: several fields at once, checkboxes, files, drag and drop, text, keys. */
import { decodedSize, MAX_FILE_BYTES } from '../../src/tools/common'
import type { forms as defs, BrowserToolInput } from '../../src/tools'
import type { UploadFile } from '../../src/tools/define'
import { reportAction } from './actionReport'
import type { Handlers } from './context'
import { withDebugger, type Cdp } from './debuggerSession'
import { invalid, messageOf, withTimeout, sleep } from './errors'
import { locateElement } from './frames'
import { afterAction } from './input'
import { keyDefinition, MODIFIER_BITS } from './keys'
import type * as pageOps from './pageLibrary/ops'
import { runInPage } from './pageScript'
import { resolveTab, tabIdOf } from './tabLookup'
import { heldModifiers, insertText as cdpInsertText, mouseClick, mouseMove } from './trustedInput'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>
type SentFile = UploadFile

const CHOOSER_TIMEOUT_MS = 5_000

function assertFileSize(files: readonly SentFile[]): void {
  const bytes = files.reduce((sum, f) => sum + decodedSize(f.base64), 0)
  if (bytes > MAX_FILE_BYTES)
    throw invalid(`the files add up to ${bytes} bytes; at most ${MAX_FILE_BYTES} can be sent in one call`)
}

async function trustedClickOn(tab: chrome.tabs.Tab, target: { ref?: string; selector?: string }) {
  const where = await locateElement(tab, target)
  if (where.coveredBy) throw invalid(`${where.description} is covered by ${where.coveredBy}`)
  await withDebugger(tabIdOf(tab), tab.url, (cdp) => mouseClick(cdp, where.x, where.y))
  return where
}

/**
 * Each field in turn; a field that fails does not stop the others. The result names only the fields
 * that failed or do not hold what was asked (a page may reformat or refuse a value), then what else
 * changed on the page.
 */
async function fillForm(input: In<'fillForm'>) {
  const tab = await resolveTab(input.tabId)
  return reportAction(tabIdOf(tab), input, async () => {
    const problems: string[] = []
    const quiet: string[] = []
    for (const field of input.fields) {
      const target = { ref: field.ref, selector: field.selector }
      const name = field.ref ?? field.selector ?? ''
      try {
        const result = await runInPage<{ field: string; value: unknown; toggle?: boolean }>(
          tab,
          'fillField',
          {
            ...target,
            value: field.value,
          },
        )
        // Checkboxes and radios get a real click, so the page's handlers run as for a user.
        if (result.toggle) await trustedClickOn(tab, target)
        const held = await heldValue(tab, target, field.value, result)
        if (held !== undefined)
          problems.push(`${result.field} (${name}) holds ${held}, not ${JSON.stringify(field.value)}`)
        quiet.push(await runInPage<string>(tab, 'refOfTarget', target))
      } catch (err) {
        problems.push(`${name} failed: ${messageOf(err)}`)
      }
    }
    const ok = input.fields.length - problems.length
    return { lines: [`Filled ${ok} of ${input.fields.length} fields.`, ...problems], quiet }
  })
}

/** What a field holds when that is not what was asked; undefined when it is (or cannot be shown). */
async function heldValue(
  tab: chrome.tabs.Tab,
  target: { ref?: string; selector?: string },
  wanted: string | number | boolean,
  result: { value: unknown; toggle?: boolean },
): Promise<string | undefined> {
  if (typeof result.value === 'boolean') {
    const { checked } = await runInPage<{ checked: boolean }>(tab, 'checkedState', target)
    return checked === result.value ? undefined : JSON.stringify(checked)
  }
  if (result.value === '••••••') return undefined
  const { value } = await runInPage<{ value: string | null }>(tab, 'value', target)
  if (value === null || value === String(wanted)) return undefined
  // A select answers with its option's label, which may be what was asked instead of the value.
  if (result.value === String(wanted)) return undefined
  return JSON.stringify(value)
}

async function setChecked(input: In<'setChecked'>) {
  const tab = await resolveTab(input.tabId)
  const target = { ref: input.ref, selector: input.selector }
  const before = await runInPage<{ field: string; checked: boolean }>(tab, 'checkedState', target)
  if (before.checked === input.checked) return before
  if (!input.checked && /^radio /.test(before.field))
    throw invalid(`${before.field} is a radio button: select another option of its group instead`)
  await trustedClickOn(tab, target)
  const after = await runInPage<{ field: string; checked: boolean }>(tab, 'checkedState', target)
  if (after.checked !== input.checked)
    throw invalid(`${after.field} did not change when clicked (the page may prevent it)`)
  return after
}

/** The files, built in the page's own world from the bytes sent, for the element Chrome's chooser named. */
function assignInPage(this: HTMLInputElement, files: SentFile[]) {
  const transfer = new DataTransfer()
  for (const f of files) {
    const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))
    transfer.items.add(new File([bytes], f.name, { type: f.mimeType ?? 'application/octet-stream' }))
  }
  this.files = transfer.files
  this.dispatchEvent(new Event('input', { bubbles: true, composed: true }))
  this.dispatchEvent(new Event('change', { bubbles: true }))
  return [...this.files].map((f) => ({ name: f.name, size: f.size }))
}

/**
 * A file input is given the files directly. Any other element is clicked with trusted input while
 * Chrome's file chooser is intercepted; the chooser names its input by backendNodeId, which gets the files.
 */
/** Files named by path arrive here as bytes: the daemon has read them (src/tools/forms.ts). */
async function uploadFile(input: In<'uploadFile'>) {
  const sent = input.files ?? []
  if (!sent.length) throw invalid('give files, paths or both')
  assertFileSize(sent)
  const tab = await resolveTab(input.tabId)
  const target = { ref: input.ref, selector: input.selector }
  const direct = await runInPage<string | null>(tab, 'fileInputRef', target)
  if (direct !== null)
    return runInPage<ReturnType<typeof pageOps.assignFiles>>(tab, 'assignFiles', { ref: direct, files: sent })
  const where = await locateElement(tab, target)
  return withDebugger(tabIdOf(tab), tab.url, async (cdp) => {
    let off: () => unknown = () => undefined
    const opened = new Promise<{ backendNodeId: number; mode: string }>((resolve) => {
      off = cdp.on((method, params) => {
        if (method === 'Page.fileChooserOpened') resolve(params as never)
      })
    })
    await cdp.send('Page.setInterceptFileChooserDialog', { enabled: true })
    try {
      await mouseClick(cdp, where.x, where.y)
      const chooser = await withTimeout(
        opened,
        CHOOSER_TIMEOUT_MS,
        `clicking ${where.description} opened no file chooser: give the file input itself, or the button that opens the chooser`,
      )
      const files = chooser.mode === 'selectSingle' ? sent.slice(0, 1) : sent
      const { object } = await cdp.send<{ object: { objectId: string } }>('DOM.resolveNode', {
        backendNodeId: chooser.backendNodeId,
      })
      const result = await cdp.send<{ result: { value: { name: string; size: number }[] } }>(
        'Runtime.callFunctionOn',
        {
          objectId: object.objectId,
          functionDeclaration: assignInPage.toString(),
          arguments: [{ value: files }],
          returnByValue: true,
        },
      )
      return { field: where.description, files: result.result.value }
    } finally {
      off()
      await cdp.send('Page.setInterceptFileChooserDialog', { enabled: false }).catch(() => undefined)
    }
  })
}

/** HTML drag and drop is intercepted and replayed at the target; pointer-based dragging just moves. */
async function dragBetween(cdp: Cdp, from: { x: number; y: number }, to: { x: number; y: number }) {
  let dragData: unknown
  const off = cdp.on((method, params) => {
    if (method === 'Input.dragIntercepted') dragData = params.data
  })
  await cdp.send('Input.setInterceptDrags', { enabled: true })
  try {
    await mouseMove(cdp, from.x, from.y)
    await cdp.send('Input.dispatchMouseEvent', {
      type: 'mousePressed',
      x: from.x,
      y: from.y,
      button: 'left',
      clickCount: 1,
    })
    const steps = 5
    for (let i = 1; i <= steps; i++)
      await cdp.send('Input.dispatchMouseEvent', {
        type: 'mouseMoved',
        x: from.x + ((to.x - from.x) * i) / steps,
        y: from.y + ((to.y - from.y) * i) / steps,
        button: 'left',
        buttons: 1,
      })
    await sleep(50)
    if (dragData) {
      for (const type of ['dragEnter', 'dragOver', 'drop'])
        await cdp.send('Input.dispatchDragEvent', { type, x: to.x, y: to.y, data: dragData })
    }
    await cdp.send('Input.dispatchMouseEvent', {
      type: 'mouseReleased',
      x: to.x,
      y: to.y,
      button: 'left',
      clickCount: 1,
    })
  } finally {
    off()
    await cdp.send('Input.setInterceptDrags', { enabled: false }).catch(() => undefined)
  }
}

async function drag(input: In<'drag'>) {
  const tab = await resolveTab(input.tabId)
  const from = await locateElement(tab, { ref: input.fromRef, selector: input.fromSelector })
  const to = await locateElement(tab, { ref: input.toRef, selector: input.toSelector })
  // Bringing the target into view may have scrolled the source: measure it again.
  const start = await locateElement(tab, { ref: input.fromRef, selector: input.fromSelector })
  await withDebugger(tabIdOf(tab), tab.url, (cdp) => dragBetween(cdp, start, to))
  await afterAction(tabIdOf(tab))
  return { dragged: from.description, onto: to.description }
}

async function drop(input: In<'drop'>) {
  if (!input.files?.length && !input.data) throw invalid('give files, paths or data to drop')
  assertFileSize(input.files ?? [])
  const tab = await resolveTab(input.tabId)
  return runInPage<ReturnType<typeof pageOps.dropOn>>(tab, 'dropOn', {
    ref: input.ref,
    selector: input.selector,
    files: input.files,
    data: input.data,
  })
}

async function focused(tab: chrome.tabs.Tab) {
  return (await runInPage<{ focused: string | null }>(tab, 'activeElement').catch(() => ({ focused: null })))
    .focused
}

async function insertText(input: In<'insertText'>) {
  const tab = await resolveTab(input.tabId)
  if (input.ref !== undefined || input.selector !== undefined)
    await runInPage(tab, 'focusTarget', { ref: input.ref, selector: input.selector })
  await withDebugger(tabIdOf(tab), tab.url, (cdp) => cdpInsertText(cdp, input.text))
  return { inserted: input.text.length, focused: await focused(tab) }
}

async function key(tab: chrome.tabs.Tab, name: string, type: 'keyDown' | 'keyUp') {
  const def = keyDefinition(name)
  const tabId = tabIdOf(tab)
  const held = heldModifiers(tabId)
  const bit = MODIFIER_BITS[def.key] ?? 0
  if (type === 'keyDown') held.bits |= bit
  else held.bits &= ~bit
  await withDebugger(tabId, tab.url, (cdp) =>
    cdp.send('Input.dispatchKeyEvent', {
      type: type === 'keyDown' ? (def.text ? 'keyDown' : 'rawKeyDown') : 'keyUp',
      modifiers: held.bits,
      key: def.key,
      code: def.code,
      windowsVirtualKeyCode: def.keyCode,
      location: def.location ?? 0,
      ...(type === 'keyDown' && def.text && !(held.bits & ~MODIFIER_BITS.Shift!) ? { text: def.text } : {}),
    }),
  )
}

async function keyDown(input: In<'keyDown'>) {
  const tab = await resolveTab(input.tabId)
  await key(tab, input.key, 'keyDown')
  return { down: input.key, focused: await focused(tab) }
}

async function keyUp(input: In<'keyUp'>) {
  const tab = await resolveTab(input.tabId)
  await key(tab, input.key, 'keyUp')
  return { up: input.key, focused: await focused(tab) }
}

export const formsHandlers: Handlers<typeof defs> = {
  fillForm,
  setChecked,
  uploadFile,
  drag,
  drop,
  insertText,
  keyDown,
  keyUp,
}

/**
 * browser_recording_start and browser_recording_stop. While an agent records, each of its calls that
 * acts on an element has that element's target signals taken before it acts (./pageLibrary/signals),
 * kept here by the call's dispatch id; stop hands them to the daemon, which joins them to the calls
 * its call path saw (src/workflows). Nothing else is recorded here: the calls are the daemon's.
 *
 * Chrome may stop the service worker between two of the agent's calls: what is kept here is in session
 * storage too (written after each capture, read back when the worker starts), so a recording's targets
 * survive it. An extension reload clears session storage: the stop then says no recording is running,
 * and the daemon tells the agent its recording was lost.
 */
import type { CapturedCall, Target } from '../../src/protocol/workflow'
import type { workflows as defs } from '../../src/tools'
import type { BuiltinContext, Handlers } from './context'
import { SessionEntries } from '../lib/sessionStorage'
import { invalid } from './errors'
import { childFrameIds } from './frames'
import { frameOfRef, runInPage } from './pageScript'
import { resolveTab } from './tabLookup'

/** The tools whose element a recording keeps (browser_get_text's: a read step reads it again). */
const TARGET_TOOLS = new Set([
  'browser_get_text',
  'browser_click',
  'browser_type',
  'browser_select_option',
  'browser_press_key',
  'browser_scroll',
  'browser_upload_file',
])
const MAX_STEPS = 500

interface Recording {
  name: string
  calls: Map<string, CapturedCall>
}

/** Recordings by the calling client's name (one each). */
const recordings = new Map<string, Recording>()
/**
 * The same in session storage, an entry per recording (`[client]`: its name) and per captured call
 * (`[client, dispatchId]`: the call and its place), so a capture writes itself alone.
 */
type SavedEntry = { name: string } | { place: number; call: CapturedCall }
const saved = new SessionEntries<SavedEntry>('bridge.agentRecording:')
const idOf = (...parts: string[]) => JSON.stringify(parts)

/** The recordings a stopped worker left; every use waits for them. */
const restored = (async () => {
  const entries = await saved.all().catch(() => new Map<string, SavedEntry>())
  const calls: Array<{ client: string; dispatchId: string; place: number; call: CapturedCall }> = []
  for (const [id, entry] of entries) {
    const [client, dispatchId] = JSON.parse(id) as [string, string?]
    if ('name' in entry) {
      if (!recordings.has(client)) recordings.set(client, { name: entry.name, calls: new Map() })
    } else if (dispatchId !== undefined) calls.push({ client, dispatchId, ...entry })
  }
  calls.sort((a, b) => a.place - b.place)
  for (const { client, dispatchId, call } of calls) recordings.get(client)?.calls.set(dispatchId, call)
})()

/** Forgets what session storage holds of this client's recording. */
const forgetSaved = (client: string) => saved.removeWhere((id) => (JSON.parse(id) as string[])[0] === client)
const clientOf = (ctx: BuiltinContext) => ctx.client ?? ''

/** The frame path of a frame: each iframe from the top down, as a CSS path in its parent. */
export async function framePathOf(tab: chrome.tabs.Tab, frameId: number): Promise<string[]> {
  const path: string[] = []
  let current = frameId
  for (let guard = 0; current !== 0 && guard < 5; guard++) {
    const frame = await chrome.webNavigation.getFrame({ tabId: tab.id!, frameId: current })
    if (!frame) break
    const index = (await childFrameIds(tab, frame.parentFrameId)).indexOf(current)
    path.unshift(await runInPage<string>(tab, 'iframeCss', { index }, frame.parentFrameId))
    current = frame.parentFrameId
  }
  return path
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)

/** An element's signals, with its frame path; undefined when the call names no element. */
async function signalsOf(tab: chrome.tabs.Tab, ref: unknown, selector: unknown): Promise<Target | undefined> {
  if (str(ref) === undefined && str(selector) === undefined) return undefined
  const target = await runInPage<Target>(tab, 'targetSignals', { ref: str(ref), selector: str(selector) })
  const frameId = frameOfRef(str(ref))
  const frame = frameId ? await framePathOf(tab, frameId) : []
  return frame.length ? { ...target, frame } : target
}

/**
 * Before a recorded call acts: the tab it acts in (a call in another tab than the last one becomes a
 * tab switch) and its elements' signals (a form's fields, a drag's two ends), kept under the call's
 * dispatch id.
 */
export async function captureTarget(
  tool: string,
  args: Record<string, unknown>,
  ctx: BuiltinContext,
  tab: chrome.tabs.Tab | undefined,
) {
  await restored
  const recording = recordings.get(clientOf(ctx))
  if (!recording || recording.calls.size >= MAX_STEPS) return
  const captured: CapturedCall = {
    // A tab still loading its first page (one a click just opened, on a busy machine) has no url yet
    // but the one it is going to: without it the step would lose its tab (and its tab switch).
    ...(tab?.id !== undefined && (tab.url || tab.pendingUrl)
      ? { tab: { id: tab.id, url: (tab.url || tab.pendingUrl)! } }
      : {}),
  }
  const place = recording.calls.size
  recording.calls.set(ctx.dispatchId, captured)
  try {
    await capture(tool, args, captured, tab)
  } finally {
    await saved.set(idOf(clientOf(ctx), ctx.dispatchId), { place, call: captured }).catch(() => undefined)
  }
}

async function capture(
  tool: string,
  args: Record<string, unknown>,
  captured: CapturedCall,
  tab: chrome.tabs.Tab | undefined,
): Promise<void> {
  try {
    const named = TARGET_TOOLS.has(tool) || tool === 'browser_fill_form' || tool === 'browser_drag'
    if (!named) return
    const at = tab ?? (await resolveTab(args.tabId as number | undefined))
    if (TARGET_TOOLS.has(tool)) {
      const target = await signalsOf(at, args.ref, args.selector)
      if (target) captured.target = target
    } else if (tool === 'browser_fill_form' && Array.isArray(args.fields)) {
      const fields: Target[] = []
      for (const field of args.fields as Record<string, unknown>[])
        fields.push((await signalsOf(at, field.ref, field.selector)) ?? {})
      captured.fields = fields
    } else if (tool === 'browser_drag') {
      const from = await signalsOf(at, args.fromRef, args.fromSelector)
      const to = await signalsOf(at, args.toRef, args.toSelector)
      if (from && to) Object.assign(captured, { target: from, to })
    }
  } catch {
    // The call itself will say what is wrong with its target.
  }
}

export const workflowsHandlers: Handlers<typeof defs> = {
  recordingStart: async (input, ctx) => {
    await restored
    recordings.set(clientOf(ctx), { name: input.name, calls: new Map() })
    await forgetSaved(clientOf(ctx)).catch(() => undefined)
    await saved.set(idOf(clientOf(ctx)), { name: input.name }).catch(() => undefined)
    return { recording: input.name }
  },
  recordingStop: async (_input, ctx) => {
    await restored
    const recording = recordings.get(clientOf(ctx))
    recordings.delete(clientOf(ctx))
    await forgetSaved(clientOf(ctx)).catch(() => undefined)
    if (!recording) throw invalid('no recording is running: start one with browser_recording_start')
    return {
      recording: recording.name,
      steps: [...recording.calls].map(([dispatchId, captured]) => ({ dispatchId, ...captured })),
    }
  },
}

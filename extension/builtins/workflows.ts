/**
 * browser_recording_start and browser_recording_stop. While an agent records, each of its calls that
 * acts on an element has that element's target signals taken before it acts (./pageLibrary/signals),
 * kept here by the call's dispatch id; stop hands them to the daemon, which joins them to the calls
 * its call path saw (src/workflows). Nothing else is recorded here: the calls are the daemon's.
 */
import type { Target } from '../../src/protocol/workflow'
import type { workflows as defs } from '../../src/tools'
import type { BuiltinContext, Handlers } from './context'
import { invalid } from './errors'
import { childFrameIds } from './frames'
import { frameOfRef, runInPage } from './pageScript'
import { resolveTab } from './tabLookup'

/** The tools whose element a recording keeps. */
const TARGET_TOOLS = new Set([
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
  targets: Map<string, Target>
}

/** Recordings by the calling client's name (one each). */
const recordings = new Map<string, Recording>()
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

/** Before a recorded call acts: its element's signals, kept under the call's dispatch id. */
export async function captureTarget(tool: string, args: Record<string, unknown>, ctx: BuiltinContext) {
  const recording = recordings.get(clientOf(ctx))
  if (!recording || !TARGET_TOOLS.has(tool) || recording.targets.size >= MAX_STEPS) return
  const ref = typeof args.ref === 'string' ? args.ref : undefined
  const selector = typeof args.selector === 'string' ? args.selector : undefined
  if (ref === undefined && selector === undefined) return
  try {
    const tab = await resolveTab(args.tabId as number | undefined)
    const target = await runInPage<Target>(tab, 'targetSignals', { ref, selector })
    const frameId = frameOfRef(ref)
    const frame = frameId ? await framePathOf(tab, frameId) : []
    recording.targets.set(ctx.dispatchId, frame.length ? { ...target, frame } : target)
  } catch {
    // The call itself will say what is wrong with its target.
  }
}

export const workflowsHandlers: Handlers<typeof defs> = {
  recordingStart: (input, ctx) => {
    recordings.set(clientOf(ctx), { name: input.name, targets: new Map() })
    return Promise.resolve({ recording: input.name })
  },
  recordingStop: (_input, ctx) => {
    const recording = recordings.get(clientOf(ctx))
    recordings.delete(clientOf(ctx))
    if (!recording) throw invalid('no recording is running: start one with browser_recording_start')
    return Promise.resolve({
      recording: recording.name,
      steps: [...recording.targets].map(([dispatchId, target]) => ({ dispatchId, target })),
    })
  },
}

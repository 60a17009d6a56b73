/** A tab's snapshot as an agent receives it: frames inlined, then cut once at the call's budget. */
import { SNAPSHOT_DEFAULT_BYTES } from '../../src/tools/common'
import { snapshotWithFrames } from './frames'
import { cutOutline } from './pageLibrary/truncate'

/** How far the page walk goes before it stops: a cut outline is shorter than the walk, never longer. */
const WALK_FACTOR = 3
const WALK_CAP = 5_000_000

export interface SnapshotRequest {
  selector?: string
  depth?: number
  maxLength?: number
  cursor?: number
}

export const SNAPSHOT_NARROW = 'pass selector for one part, depth to leave out nesting, or use browser_find'

export async function budgetedSnapshot(tab: chrome.tabs.Tab, request: SnapshotRequest): Promise<string> {
  const maxBytes = request.maxLength ?? SNAPSHOT_DEFAULT_BYTES
  const walkLimit = request.cursor ? WALK_CAP : Math.min(WALK_CAP, maxBytes * WALK_FACTOR)
  const framed = await snapshotWithFrames(tab, {
    selector: request.selector,
    depth: request.depth,
    walkLimit,
  })
  return cutOutline(framed.text, {
    maxBytes,
    cursor: request.cursor,
    complete: framed.complete,
    tool: 'browser_snapshot',
    narrow: SNAPSHOT_NARROW,
  }).text
}

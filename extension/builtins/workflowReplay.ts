/**
 * Replays a workflow (`tool.dispatch` of `workflow_<name>`, its plan filled in by the daemon): for
 * each step, find the target by the ladder of its signals (./pageLibrary/signals), act through the
 * same built-in handler an agent's call runs (so the settle wait and every check are the same), then
 * check the step's post-condition. A step found by another signal than its first, whose
 * post-condition then holds, is healed: its target as found now goes back to the daemon, which saves
 * it. A step that is not found, or whose post-condition does not hold, stops the run with a report.
 * No snapshot is taken unless a step stops.
 */
import type {
  PostCondition,
  ReadOutcome,
  ResolvedStep,
  StepOutcome,
  StopReport,
  WorkflowRunInput,
  WorkflowRunOutput,
} from '../../src/protocol/workflow'
import type { BuiltinContext } from './context'
import { openDialog } from './debuggerSession'
import { messageOf, sleep } from './errors'
import { childFrameIds } from './frames'
import type { Found } from './pageLibrary/signals'
import { runInPage } from './pageScript'
import { getTab, resolveTab, tabIdOf } from './tabLookup'

type RunTool = (tool: string, input: Record<string, unknown>, ctx: BuiltinContext) => Promise<unknown>

/** The tab a run acts in, the tabs its steps opened, and the element refs a step found. */
interface RunState {
  tabId: number
  opened: number[]
}

/**
 * How long a post-condition may take to show after the page settled (a slow render), polled (each
 * check is one script run in the page, a few ms), not slept.
 */
export const REPLAY = {
  postWaitMs: 5_000,
  pollMs: 30,
  reportChars: 3_000,
  readChars: 4_000,
  readMatches: 10,
}

class StepStop extends Error {
  constructor(
    readonly reason: StopReport['reason'],
    message: string,
  ) {
    super(message)
  }
}

/** The frame id of a step's frame path, from the top document down. */
async function frameIdOf(tab: chrome.tabs.Tab, path: readonly string[] | undefined): Promise<number> {
  let current = 0
  for (const css of path ?? []) {
    const index = await runInPage<number>(tab, 'iframeIndex', { css }, current)
    const id = (await childFrameIds(tab, current))[index]
    if (id === undefined || id < 0) throw new StepStop('not_found', `the frame ${css} is not loaded`)
    current = id
  }
  return current
}

async function act(
  step: ResolvedStep,
  state: RunState,
  refs: Refs,
  plan: WorkflowRunInput,
  run: RunTool,
  ctx: BuiltinContext,
) {
  const { tabId } = state
  const at = refs.ref === undefined ? {} : { ref: refs.ref }
  switch (step.action) {
    case 'navigate':
      return run('browser_navigate', { tabId, url: step.url, snapshot: 'none' }, ctx)
    case 'click':
      return run('browser_click', { tabId, ...at, snapshot: 'none' }, ctx)
    case 'type':
      return run(
        'browser_type',
        {
          tabId,
          ...at,
          text: step.text ?? '',
          snapshot: 'none',
          ...(step.submit ? { submit: true } : {}),
          ...(step.clear === false ? { clear: false } : {}),
        },
        ctx,
      )
    case 'fill': {
      const fields = [
        { ...at, value: valueOf(step) },
        ...(refs.more ?? []).map(({ ref, value }) => ({ ref, value })),
      ]
      const filled = await run('browser_fill_form', { tabId, fields, snapshot: 'none' }, ctx)
      // A field that fails does not fail the form call: its result says so.
      const text = typeof filled === 'string' ? filled : JSON.stringify(filled)
      if (!text.includes(`Filled ${fields.length} of ${fields.length} fields.`))
        throw new StepStop('action_failed', text.split('\n').slice(0, 3).join(' '))
      return filled
    }
    case 'drag':
      return run('browser_drag', { tabId, fromRef: refs.ref, toRef: refs.to }, ctx)
    case 'upload':
      // The files the daemon read for this run from the allowed upload folders.
      return run('browser_upload_file', { tabId, ...at, files: step.files ?? [] }, ctx)
    case 'switchTab':
      return switchTab(step, state, run, ctx)
    case 'tool':
      return toolStep(step, plan, ctx)
    case 'select':
      return run('browser_select_option', { tabId, ...at, values: step.values ?? [], snapshot: 'none' }, ctx)
    case 'press':
      return run('browser_press_key', { tabId, ...at, key: step.key, snapshot: 'none' }, ctx)
    case 'scroll':
      return run(
        'browser_scroll',
        {
          tabId,
          ...at,
          ...(step.direction ? { direction: step.direction } : {}),
          ...(step.amount ? { amount: step.amount } : {}),
        },
        ctx,
      )
    case 'dialog':
      return run(
        'browser_handle_dialog',
        {
          tabId,
          accept: step.accept !== false,
          ...(step.text !== undefined ? { promptText: step.text } : {}),
        },
        ctx,
      )
    case 'wait':
      return run('browser_wait_for', { tabId, text: step.text }, ctx)
    case 'read':
      return readStep(step, tabId, refs, run, ctx)
  }
}

/** `  - paragraph "Total" [ref=e4]: Balance: £2` -> `Total: Balance: £2`. */
const textOfLine = (line: string) =>
  line
    .trim()
    .replace(/^- [a-z]+(?=[ :]|$):? ?/, '')
    .replace(/ \[(ref|level|options|checked|focused|disabled|expanded|selected|pressed)(=[^\]]*)?\]/g, '')
    .replace(/^"((?:[^"\\]|\\.)*)"/, '$1')
    .trim()

/** A read step's text: the lines that show its text or pattern, else its element's (or the page's) text. */
async function readStep(step: ResolvedStep, tabId: number, refs: Refs, run: RunTool, ctx: BuiltinContext) {
  if (step.text !== undefined || step.pattern !== undefined) {
    const query = step.text !== undefined ? { text: step.text } : { regex: step.pattern }
    const found = (await run(
      'browser_find',
      { tabId, ...query, context: 0, limit: REPLAY.readMatches },
      ctx,
    )) as { matches: { line: string }[] }
    if (!found.matches.length)
      throw new StepStop('not_found', `the page no longer shows ${JSON.stringify(step.text ?? step.pattern)}`)
    // The lines as text: a read gives the answer, not the outline's roles and refs.
    return found.matches.map((m) => textOfLine(m.line)).join('\n')
  }
  const read = (await run(
    'browser_get_text',
    { tabId, ...(refs.ref !== undefined ? { ref: refs.ref } : {}), maxLength: REPLAY.readChars },
    ctx,
  )) as { text: string }
  return read.text
}

/** The elements a step acts on, found by the ladder; `more`: the fill steps right after it, done in the same call. */
interface Refs {
  ref?: string
  to?: string
  more?: { index: number; ref: string; value: string | boolean }[]
}

const valueOf = (step: ResolvedStep): string | boolean => step.checked ?? step.text ?? ''

/**
 * The fill steps that follow a fill step in the same frame, up to the first with a post-condition:
 * each found by its own first signal on its own origin (one that would need healing, or is not found,
 * ends the group and runs as a step of its own). One form call fills them all, as the agent's did.
 */
async function fillsAfter(
  step: ResolvedStep,
  plan: WorkflowRunInput,
  tab: chrome.tabs.Tab,
  frameId: number,
  expected: string | undefined,
): Promise<NonNullable<Refs['more']>> {
  const more: NonNullable<Refs['more']> = []
  if (step.action !== 'fill' || step.post) return more
  const frame = JSON.stringify(step.target?.frame ?? [])
  for (const next of plan.steps.slice(plan.steps.indexOf(step) + 1)) {
    if (next.action !== 'fill' || !next.target || JSON.stringify(next.target.frame ?? []) !== frame) break
    const found = await find(tab, next.target, frameId, next, expected).catch(() => undefined)
    if (!found || found.by !== found.first) break
    more.push({ index: next.index, ref: found.ref, value: valueOf(next) })
    if (next.post) break
  }
  return more
}

/** The daemon calls the step's tool as the run's client, through the path every call takes. */
async function toolStep(step: ResolvedStep, plan: WorkflowRunInput, ctx: BuiltinContext) {
  if (plan.run === undefined || !ctx.toolStep)
    throw new StepStop('action_failed', `this run cannot call ${step.tool ?? 'a tool'}`)
  const answer = await ctx.toolStep(plan.run, step.index)
  if (!answer.ok)
    throw new StepStop(
      'action_failed',
      `${step.tool ?? 'the tool'} failed: ${answer.error?.code ?? 'tool_error'}: ${answer.error?.message ?? ''}`,
    )
  return answer.output
}

/** Origin and path of a URL, as steps name tabs: no query, no fragment. */
const pageOf = (url: string | undefined): string | undefined => {
  try {
    if (!url) return undefined
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return undefined
  }
}

/**
 * A tab at the step's URL (origin and path): one this run opened (the latest first), else the run's
 * own, else any; polled while a new tab loads. Acting in it is checked as any step is (the agent's tab
 * group, the origin).
 */
async function switchTab(step: ResolvedStep, state: RunState, run: RunTool, ctx: BuiltinContext) {
  const wanted = pageOf(step.url)
  if (!wanted) throw new StepStop('action_failed', 'the step names no tab')
  const deadline = Date.now() + REPLAY.postWaitMs
  for (;;) {
    const tabs = await chrome.tabs.query({})
    const order = [...state.opened].reverse().concat(state.tabId)
    const ranked = [
      ...order.map((id) => tabs.find((t) => t.id === id)),
      ...tabs.filter((t) => t.id !== undefined && !order.includes(t.id)),
    ]
    const found = ranked.find((t) => t && pageOf(t.url) === wanted)
    if (found?.id !== undefined) {
      await run('browser_focus_tab', { tabId: found.id }, ctx)
      state.tabId = found.id
      return { switched: found.id }
    }
    if (Date.now() > deadline) throw new StepStop('not_found', `no tab is open at ${wanted}`)
    await sleep(REPLAY.pollMs)
  }
}

/** After a click that opened a tab when it was recorded: the tab it opens now, at the recorded page. */
async function followOpened(step: ResolvedStep, state: RunState, before: ReadonlySet<number>) {
  const wanted = pageOf(step.post?.tab)
  if (!wanted) return
  const deadline = Date.now() + REPLAY.postWaitMs
  for (;;) {
    const opened = (await chrome.tabs.query({})).filter(
      (t) => t.id !== undefined && !before.has(t.id) && t.openerTabId === state.tabId,
    )
    const match = opened.find((t) => pageOf(t.pendingUrl ?? t.url) === wanted)
    if (match?.id !== undefined) {
      state.opened.push(match.id)
      return
    }
    if (Date.now() > deadline)
      throw new StepStop(
        'post_condition',
        `after the step, no new tab opened at ${wanted}${opened.length ? ` (opened: ${opened.map((t) => pageOf(t.url) ?? 'a blank tab').join(', ')})` : ''}`,
      )
    await sleep(REPLAY.pollMs)
  }
}

/** What of the post-condition the page does not show, polled until it does or the time is up. */
async function postMisses(step: ResolvedStep, tabId: number, frameId: number): Promise<string[]> {
  if (!step.post) return []
  const deadline = Date.now() + REPLAY.postWaitMs
  for (;;) {
    const misses = await postMissesNow(step.post, tabId, frameId)
    if (!misses.length || Date.now() > deadline) return misses
    await sleep(REPLAY.pollMs)
  }
}

/** What of the post-condition the page does not show now. */
async function postMissesNow(post: PostCondition, tabId: number, frameId: number): Promise<string[]> {
  if (post.dialog) {
    const dialog = openDialog(tabId)
    return dialog && dialog.type === post.dialog.type ? [] : [`no ${post.dialog.type} dialog opened`]
  }
  const tab = await getTab(tabId)
  const misses = await runInPage<string[]>(tab, 'postMisses', { post, checkUrl: true }, 0).catch(
    (e: unknown) => [messageOf(e)],
  )
  if (!misses.length || frameId === 0) return misses
  const inFrame = await runInPage<string[]>(
    tab,
    'postMisses',
    { post: { appeared: post.appeared ?? [] }, checkUrl: false },
    frameId,
  ).catch(() => misses)
  return misses.filter((m) => !m.startsWith('the page does not show') || inFrame.includes(m))
}

const hide = (text: string, secrets: readonly string[]) =>
  secrets.reduce((out, secret) => (secret ? out.split(secret).join('(secret)') : out), text)

/** A post-condition as a report shows it: a secret's value in it (a page echoed one) blanked. */
const hidePost = (post: PostCondition, secrets: readonly string[]): PostCondition => ({
  ...post,
  ...(post.url !== undefined ? { url: hide(post.url, secrets) } : {}),
  ...(post.title !== undefined ? { title: hide(post.title, secrets) } : {}),
  ...(post.appeared ? { appeared: post.appeared.map((line) => hide(line, secrets)) } : {}),
  ...(post.dialog?.message !== undefined
    ? { dialog: { ...post.dialog, message: hide(post.dialog.message, secrets) } }
    : {}),
})

/** The compact snapshot around where the step's target was (its form or section), with refs. */
async function around(step: ResolvedStep, tabId: number, secrets: readonly string[]): Promise<string> {
  if (openDialog(tabId)) return 'A dialog is open; the page waits for it.'
  try {
    const tab = await getTab(tabId)
    const frameId = await frameIdOf(tab, step.target?.frame).catch(() => 0)
    const selector = step.target
      ? await runInPage<string | null>(tab, 'regionOf', { target: step.target }, frameId)
      : null
    const snap = await runInPage<{ text: string }>(
      tab,
      'snapshot',
      { walkLimit: REPLAY.reportChars * 2, ...(selector ? { selector } : {}) },
      frameId,
    )
    const text =
      snap.text.length > REPLAY.reportChars
        ? `${snap.text.slice(0, REPLAY.reportChars)}\n[cut: browser_snapshot for the whole page]`
        : snap.text
    return hide(text, secrets)
  } catch (err) {
    return `(the page could not be read: ${messageOf(err)})`
  }
}

const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : undefined
  } catch {
    return undefined
  }
}

/**
 * The origin a step must act on: its target's recorded origin, or else (a file from before targets
 * kept one, an import) the origin the steps before it last went to or saw.
 */
function originCheck(step: ResolvedStep, expected: string | undefined, now: string, frameId: number) {
  const wanted = step.target?.origin ?? (frameId === 0 ? expected : undefined)
  if (wanted !== undefined && now !== wanted)
    throw new StepStop(
      'origin_changed',
      `the page is now on ${now}, and this step was recorded on ${wanted}: a step acts on no other origin than its own`,
    )
}

/** The actions whose target the ladder finds before they act. */
const ACTS_ON_TARGET = new Set<ResolvedStep['action']>([
  'read',
  'click',
  'type',
  'fill',
  'select',
  'press',
  'scroll',
  'drag',
  'upload',
])

/** One element by the ladder, on the step's own origin; a miss stops the run. */
async function find(
  tab: chrome.tabs.Tab,
  target: NonNullable<ResolvedStep['target']>,
  frameId: number,
  step: ResolvedStep,
  expected: string | undefined,
): Promise<Found & { ref: string }> {
  const found = await runInPage<Found>(tab, 'findTarget', { target }, frameId)
  originCheck(step, expected, found.origin, frameId)
  if (!found.ref) {
    const many = Object.values(found.tried).some((n) => n > 1)
    const tried = Object.entries(found.tried)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')
    throw new StepStop(
      many ? 'ambiguous' : 'not_found',
      `no signal of the target found exactly one element (${tried || 'no signals'})`,
    )
  }
  return found as Found & { ref: string }
}

const words = (step: ResolvedStep) => {
  const t = step.target
  const what = t?.describe ?? (t?.role && t.name ? `${t.role} "${t.name}"` : (t?.css ?? ''))
  return `${step.action}${what ? ` ${what}` : ''}${step.url ? ` ${step.url}` : ''}`
}

/** Runs the plan; never throws for a step (a failing step is the report), only for a bad tab. */
export async function runWorkflow(
  plan: WorkflowRunInput,
  run: RunTool,
  ctx: BuiltinContext,
): Promise<WorkflowRunOutput> {
  const state: RunState = { tabId: tabIdOf(await resolveTab(plan.tabId)), opened: [] }
  const began = state.tabId
  const steps: StepOutcome[] = []
  const reads: ReadOutcome[] = []
  // The run's result is labelled with every origin its steps were on (its reads and its stop report
  // are page content), not only the last step's.
  const origins = new Set<string>()
  const outer = ctx
  ctx = {
    ...outer,
    labelOrigins: (read) => {
      for (const origin of read) origins.add(origin)
      outer.labelOrigins?.([...origins])
    },
  }
  let expected: string | undefined
  /** Steps done inside an earlier step's call (fills of one form). */
  const done = new Set<number>()
  for (const step of plan.steps) {
    if (done.has(step.index)) continue
    const started = Date.now()
    let healed: StepOutcome['healed']
    const { tabId } = state
    try {
      const refs: Refs = {}
      let frameId = 0
      if (step.target && ACTS_ON_TARGET.has(step.action)) {
        const tab = await getTab(tabId)
        frameId = await frameIdOf(tab, step.target.frame)
        const found = await find(tab, step.target, frameId, step, expected)
        refs.ref = found.ref
        if (found.by !== found.first && found.first && found.by && found.now)
          healed = {
            from: found.first,
            by: found.by,
            target: { ...found.now, ...(step.target.frame ? { frame: step.target.frame } : {}) },
          }
        if (step.action === 'drag' && step.to) {
          const toFrame = await frameIdOf(tab, step.to.frame)
          refs.to = (await find(tab, step.to, toFrame, { ...step, target: step.to }, expected)).ref
        }
      } else if (step.action === 'press' || step.action === 'scroll') {
        // Keys go to whatever has focus: only on the origin the run is on.
        originCheck(step, expected, originOf((await getTab(tabId)).url) ?? 'an unknown origin', 0)
      }
      if (step.action === 'fill' && refs.ref !== undefined)
        refs.more = await fillsAfter(step, plan, await getTab(tabId), frameId, expected)
      const before = new Set(step.post?.tab ? (await chrome.tabs.query({})).map((t) => t.id) : [])
      // A step whose post-condition is on the page needs no quiet moment of the page after it: its
      // action's settle wait ends once the post-condition shows (and nothing it started is loading).
      const post = step.post
      const checked = post && !post.dialog && !post.tab && !refs.more?.length
      const settledWhen = async () => !(await postMissesNow(post!, tabId, frameId)).length
      try {
        const acted = await act(step, state, refs, plan, run, checked ? { ...ctx, settledWhen } : ctx)
        if (step.action === 'read') reads.push({ step: step.index, text: hide(String(acted), plan.secrets) })
      } catch (err) {
        if (err instanceof StepStop) throw err
        throw new StepStop('action_failed', messageOf(err))
      }
      const last = plan.steps.find((s) => s.index === refs.more?.at(-1)?.index) ?? step
      const misses = await postMisses(last, tabId, frameId)
      if (misses.length) throw new StepStop('post_condition', `after the step, ${misses.join('; ')}`)
      await followOpened(step, state, before as Set<number>)
      if (step.action === 'navigate' || step.action === 'switchTab') expected = originOf(step.url) ?? expected
      expected = originOf(last.post?.url) ?? expected
      // Each step done re-arms the call's timeout: a long run is not a stuck one.
      ctx.progress(step.index, plan.steps.length, `step ${step.index} done`)
      steps.push({
        index: step.index,
        ok: true,
        durationMs: Date.now() - started,
        ...(healed ? { healed } : {}),
      })
      for (const { index } of refs.more ?? []) {
        done.add(index)
        steps.push({ index, ok: true, durationMs: 0 })
      }
    } catch (err) {
      const stop = err instanceof StepStop ? err : new StepStop('action_failed', messageOf(err))
      const message = hide(stop.message, plan.secrets)
      steps.push({
        index: step.index,
        ok: false,
        durationMs: Date.now() - started,
        error: { code: stop.reason, message },
      })
      return {
        ok: false,
        steps,
        ...(reads.length ? { read: reads } : {}),
        tabId: state.tabId,
        stopped: {
          step: step.index,
          action: hide(words(step), plan.secrets),
          reason: stop.reason,
          message,
          ...(step.post ? { expected: hidePost(step.post, plan.secrets) } : {}),
          page: await around(step, state.tabId, plan.secrets),
        },
        ...(plan.run !== undefined ? { run: plan.run } : {}),
      }
    }
  }
  return {
    ok: true,
    steps,
    ...(reads.length ? { read: reads } : {}),
    // The agent knows the tab it ran in: only another one (opened or switched to) is news.
    ...(state.tabId !== began ? { tabId: state.tabId } : {}),
    ...(plan.run !== undefined ? { run: plan.run } : {}),
  }
}

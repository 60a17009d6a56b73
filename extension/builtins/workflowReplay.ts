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

/** How long a post-condition may take to show after the page settled (a slow render); polled, not slept. */
export const REPLAY = { postWaitMs: 5_000, pollMs: 100, reportChars: 3_000 }

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
  tabId: number,
  ref: string | undefined,
  run: RunTool,
  ctx: BuiltinContext,
) {
  const at = ref === undefined ? {} : { ref }
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
    default:
      throw new StepStop(
        'action_failed',
        `a ${step.action} step cannot be replayed by this version of bridge`,
      )
  }
}

/** What of the post-condition the page does not show, polled until it does or the time is up. */
async function postMisses(step: ResolvedStep, tabId: number, frameId: number): Promise<string[]> {
  const post = step.post
  if (!post) return []
  const deadline = Date.now() + REPLAY.postWaitMs
  for (;;) {
    let misses: string[]
    if (post.dialog) {
      const dialog = openDialog(tabId)
      misses = dialog && dialog.type === post.dialog.type ? [] : [`no ${post.dialog.type} dialog opened`]
    } else {
      const tab = await getTab(tabId)
      misses = await runInPage<string[]>(tab, 'postMisses', { post, checkUrl: true }, 0).catch(
        (e: unknown) => [messageOf(e)],
      )
      if (misses.length && frameId !== 0) {
        const inFrame = await runInPage<string[]>(
          tab,
          'postMisses',
          { post: { appeared: post.appeared ?? [] }, checkUrl: false },
          frameId,
        ).catch(() => misses)
        misses = misses.filter((m) => !m.startsWith('the page does not show') || inFrame.includes(m))
      }
    }
    if (!misses.length || Date.now() > deadline) return misses
    await sleep(REPLAY.pollMs)
  }
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
  const tabId = tabIdOf(await resolveTab(plan.tabId))
  const steps: StepOutcome[] = []
  let expected: string | undefined
  for (const step of plan.steps) {
    const started = Date.now()
    let healed: StepOutcome['healed']
    try {
      let ref: string | undefined
      let frameId = 0
      if (step.target && step.action !== 'navigate' && step.action !== 'dialog') {
        const tab = await getTab(tabId)
        frameId = await frameIdOf(tab, step.target.frame)
        const found = await runInPage<Found>(tab, 'findTarget', { target: step.target }, frameId)
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
        ref = found.ref
        if (found.by !== found.first && found.first && found.by && found.now)
          healed = {
            from: found.first,
            by: found.by,
            target: { ...found.now, ...(step.target.frame ? { frame: step.target.frame } : {}) },
          }
      } else if (step.action === 'press' || step.action === 'scroll') {
        // Keys go to whatever has focus: only on the origin the run is on.
        originCheck(step, expected, originOf((await getTab(tabId)).url) ?? 'an unknown origin', 0)
      }
      try {
        await act(step, tabId, ref, run, ctx)
      } catch (err) {
        if (err instanceof StepStop) throw err
        throw new StepStop('action_failed', messageOf(err))
      }
      const misses = await postMisses(step, tabId, frameId)
      if (misses.length) throw new StepStop('post_condition', `after the step, ${misses.join('; ')}`)
      if (step.action === 'navigate') expected = originOf(step.url) ?? expected
      expected = originOf(step.post?.url) ?? expected
      steps.push({
        index: step.index,
        ok: true,
        durationMs: Date.now() - started,
        ...(healed ? { healed } : {}),
      })
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
        tabId,
        stopped: {
          step: step.index,
          action: hide(words(step), plan.secrets),
          reason: stop.reason,
          message,
          ...(step.post ? { expected: hidePost(step.post, plan.secrets) } : {}),
          page: await around(step, tabId, plan.secrets),
        },
      }
    }
  }
  return { ok: true, steps, tabId }
}

/**
 * From the calls a recording saw to a workflow's steps and variables. Pure: the calls, the target
 * signals the extension captured for them, and the values the agent read from cookies and storage go
 * in; steps come out. Values typed become variables; a value typed into a password field or equal to
 * one the agent read from a cookie or storage becomes a secret variable, and its value appears nowhere
 * in what is returned (the scrub at the end makes sure of it).
 */
import type { CapturedCall, PostCondition, Step, Target } from '../protocol/workflow'
import type { Variable } from './format'
import { postConditionOf } from './postCondition'

/** One call the recording saw, successful, in order. */
export interface SeenCall {
  id: string
  tool: string
  /** The owner of the tool in the catalog: `browser`, a plugin, a site's origin. */
  plugin: string
  input: Record<string, unknown>
  /** The result's text as the agent got it (for the post-condition); empty for structured results. */
  text: string
}

export interface BuiltSteps {
  steps: Step[]
  variables: Variable[]
  /** Calls that are not steps a workflow can replay, named for the agent. */
  skipped: string[]
}

/** Built-in calls that read and do not act: not steps (but browser_find and browser_get_text, read steps). */
const READS =
  /^(browser_(snapshot|find|get_|query|list_|tab_info|screenshot|console|network_(requests|export)|local_storage_get|download_status|list_downloads)|extension_)/

function variableName(target: Target | undefined, used: Set<string>, fallback: string): string {
  const words = (target?.label ?? target?.name ?? target?.testId ?? fallback)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
    .slice(0, 4)
  let base = words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('') || fallback
  if (!/^[a-z]/.test(base)) base = `v${base}`
  base = base.slice(0, 36)
  let name = base
  for (let n = 2; used.has(name); n++) name = `${base}${n}`
  used.add(name)
  return name
}

/** Whether a typed value came from a secret the agent read (equal, or containing one of some length). */
function fromSecret(value: string, secrets: ReadonlySet<string>): boolean {
  for (const secret of secrets)
    if (secret.length >= 4 && (value === secret || value.includes(secret))) return true
  return false
}

/** Origin and path of a URL (how a step names a tab); undefined for a page that is not on the web. */
function pageOf(url: string | undefined): string | undefined {
  try {
    const parsed = new URL(url ?? '')
    return /^https?:$/.test(parsed.protocol) ? `${parsed.origin}${parsed.pathname}` : undefined
  } catch {
    return undefined
  }
}

/** Tabs a click's result says it opened: `Opened tab <id>: <url>`. */
const openedBy = (text: string) =>
  [...text.matchAll(/^Opened tab (\d+): (\S*)$/gm)].map((m) => ({ id: Number(m[1]), url: m[2]! }))

export function buildSteps(
  calls: readonly SeenCall[],
  captured: ReadonlyMap<string, CapturedCall>,
  secretsRead: ReadonlySet<string>,
): BuiltSteps {
  const steps: Step[] = []
  const variables: Variable[] = []
  const skipped: string[] = []
  const used = new Set<string>()
  /** Values to keep off disk: every secret typed. */
  const secretValues = new Map<string, string>()
  /** Typed values with their variable, to put `{{name}}` in post-conditions. */
  const typed: { value: string; name: string }[] = []
  /** A value typed (or given a tool) as a variable: a secret when it came from one. */
  const variable = (value: string, target: Target | undefined, fallback: string): string => {
    const secret = target?.secret === true || fromSecret(value, secretsRead)
    const name = variableName(target, used, secret ? 'secret' : fallback)
    variables.push(secret ? { name, secret: true } : { name, secret: false, default: value })
    if (secret) secretValues.set(name, value)
    else if (value.length >= 3) typed.push({ value, name })
    return name
  }
  /** The tab the last step acted in, and the click steps that opened tabs (by the tab's id). */
  let tab: number | undefined
  const opener = new Map<number, Step>()

  for (const call of calls) {
    const { input } = call
    const seen = captured.get(call.id)
    const target = seen?.target
    const post = postConditionOf(call.text)
    const withPost = <S extends Step>(step: S): S => (post ? { ...step, post } : step)
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
    if (call.plugin !== 'browser') {
      // A tool's string arguments are values like typed ones: variables, secrets kept off disk.
      const given = Object.fromEntries(
        Object.entries(input).map(([key, value]) => [
          key,
          typeof value === 'string' && value.length > 0
            ? `{{${variable(value, { label: key }, 'value')}}}`
            : value,
        ]),
      )
      steps.push(withPost({ action: 'tool', tool: call.tool, input: given }))
      continue
    }
    // A call in another tab than the last step's: switch to it first (by its page, as replay finds it).
    if (seen?.tab && tab !== undefined && seen.tab.id !== tab && pageOf(seen.tab.url)) {
      const url = pageOf(seen.tab.url)!
      const click = opener.get(seen.tab.id)
      if (click) click.post = { ...click.post, tab: url }
      steps.push({ action: 'switchTab', url })
    }
    if (seen?.tab) tab = seen.tab.id
    switch (call.tool) {
      case 'browser_navigate':
      case 'browser_open_tab':
        if (str(input.url)) steps.push(withPost({ action: 'navigate', url: str(input.url)! }))
        break
      case 'browser_click': {
        if (!target) break
        const step: Step = withPost({ action: 'click', target })
        // A tab it opened: followed at replay (its page filled in when a later call acts in it).
        for (const opened of openedBy(call.text)) {
          opener.set(opened.id, step)
          const url = pageOf(opened.url)
          if (url) step.post = { ...step.post, tab: url }
        }
        steps.push(step)
        break
      }
      case 'browser_fill_form': {
        const fields = Array.isArray(input.fields) ? (input.fields as Record<string, unknown>[]) : []
        if (
          !fields.length ||
          seen?.fields?.length !== fields.length ||
          seen.fields.some((f) => !f.css && !f.xpath)
        ) {
          skipped.push(`${call.tool} (its fields could not be told apart)`)
          break
        }
        // One fill step a field, each with its own target; the call's result checks the last.
        fields.forEach((field, i) => {
          const fieldTarget = seen.fields![i]!
          const value = field.value
          const step: Step =
            typeof value === 'boolean'
              ? { action: 'fill', target: fieldTarget, checked: value }
              : {
                  action: 'fill',
                  target: fieldTarget,
                  text: `{{${variable(String(value), fieldTarget, 'text')}}}`,
                }
          steps.push(i === fields.length - 1 ? withPost(step) : step)
        })
        break
      }
      case 'browser_drag':
        if (target && seen.to) steps.push(withPost({ action: 'drag', target, to: seen.to }))
        else skipped.push(`${call.tool} (its elements could not be told apart)`)
        break
      case 'browser_focus_tab':
        // The switch itself comes from the tab the next call acts in (above).
        break
      case 'browser_type': {
        if (!target) break
        const name = variable(str(input.text) ?? '', target, 'text')
        steps.push(
          withPost({
            action: 'type',
            target,
            text: `{{${name}}}`,
            ...(input.submit === true ? { submit: true } : {}),
            ...(input.clear === false ? { clear: false } : {}),
          }),
        )
        break
      }
      case 'browser_select_option':
        if (target && Array.isArray(input.values))
          steps.push(withPost({ action: 'select', target, values: input.values.map(String) }))
        break
      case 'browser_press_key':
        if (str(input.key))
          steps.push(withPost({ action: 'press', key: str(input.key)!, ...(target ? { target } : {}) }))
        break
      case 'browser_scroll':
        steps.push({
          action: 'scroll',
          ...(target ? { target } : {}),
          ...(str(input.direction) ? { direction: input.direction as Step['direction'] } : {}),
          ...(typeof input.amount === 'number' ? { amount: input.amount } : {}),
        })
        break
      case 'browser_upload_file':
        if (target && Array.isArray(input.paths))
          steps.push(withPost({ action: 'upload', target, paths: input.paths.map(String) }))
        break
      case 'browser_handle_dialog':
        steps.push(
          withPost({
            action: 'dialog',
            accept: input.accept !== false,
            ...(str(input.promptText) !== undefined ? { text: str(input.promptText)! } : {}),
          }),
        )
        break
      case 'browser_find':
        // What the agent looked for on the page: the run reads the lines that show it again.
        if (str(input.text)) steps.push({ action: 'read', text: str(input.text)! })
        else if (str(input.regex)) steps.push({ action: 'read', pattern: str(input.regex)! })
        break
      case 'browser_get_text':
        // An element's text (or the page's): the run reads it again.
        if (target) steps.push({ action: 'read', target })
        else if (str(input.ref) === undefined && str(input.selector) === undefined)
          steps.push({ action: 'read' })
        break
      case 'browser_wait_for':
        if (str(input.text)) steps.push({ action: 'wait', text: str(input.text)! })
        else skipped.push(`${call.tool} without text`)
        break
      default:
        if (!READS.test(call.tool) && !call.tool.startsWith('browser_recording_')) skipped.push(call.tool)
    }
  }

  // Post-conditions speak of the variables, not of the values typed this time.
  for (const step of steps) if (step.post) step.post = templated(step.post, typed)
  return scrubbed({ steps, variables, skipped }, secretValues)
}

/**
 * A post-condition that speaks of variables. What the page showed is data: a line of it that already
 * holds `{{` (a page writing `{{password}}` to have a secret filled into the check, or to break the
 * file with an unknown variable) is dropped, so only the placeholders put here are ever filled.
 */
function templated(post: PostCondition, typed: readonly { value: string; name: string }[]): PostCondition {
  const fill = (s: string) => typed.reduce((out, { value, name }) => out.split(value).join(`{{${name}}}`), s)
  const plain = (s: string | undefined): s is string => s !== undefined && !s.includes('{{')
  const appeared = post.appeared?.filter(plain)
  return {
    ...(plain(post.url) ? { url: fill(post.url) } : {}),
    ...(plain(post.title) ? { title: fill(post.title) } : {}),
    ...(appeared?.length ? { appeared: appeared.map(fill) } : {}),
    ...(post.dialog
      ? {
          dialog: plain(post.dialog.message) ? post.dialog : { type: post.dialog.type },
        }
      : {}),
    ...(plain(post.tab) ? { tab: post.tab } : {}),
  }
}

/**
 * The last guard before disk: any string still holding a secret's value (a page that echoed the
 * password into a heading, a URL) has it replaced by the variable; a post-condition line holding
 * one is dropped, since it would only check the secret back.
 */
function scrubbed(built: BuiltSteps, secrets: ReadonlyMap<string, string>): BuiltSteps {
  const pairs = [...secrets].filter(([, value]) => value.length > 0)
  if (!pairs.length) return built
  const holds = (s: string) => pairs.some(([, value]) => s.includes(value))
  const fill = (s: string) => pairs.reduce((out, [name, value]) => out.split(value).join(`{{${name}}}`), s)
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return fill(value)
    if (Array.isArray(value)) return value.map(walk)
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]))
    return value
  }
  const steps = built.steps.map((step) => {
    const post = step.post
    const cleanPost = post && {
      ...post,
      ...(post.appeared ? { appeared: post.appeared.filter((a) => !holds(a)) } : {}),
      ...(post.title !== undefined && holds(post.title) ? { title: undefined } : {}),
    }
    if (cleanPost && cleanPost.title === undefined) delete cleanPost.title
    return walk({ ...step, ...(cleanPost ? { post: cleanPost } : {}) }) as Step
  })
  return { ...built, steps }
}

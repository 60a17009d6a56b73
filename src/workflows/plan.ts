/**
 * A workflow as a tool: its input schema (its variables, recorded values as defaults, secrets
 * required), its steps in words (the approval card, `bridge workflow show`, the side panel), and the
 * run's plan with the values filled in (what the extension replays).
 */
import type { ResolvedStep, Step, WorkflowRunInput } from '../protocol/workflow'
import type { Workflow } from './format'

/** The JSON Schema of `workflow_<name>`'s input. */
export function inputSchemaOf(workflow: Workflow): Record<string, unknown> {
  const properties: Record<string, unknown> = {}
  const required: string[] = []
  for (const v of workflow.variables) {
    properties[v.name] = {
      type: 'string',
      maxLength: 20_000,
      ...(v.description
        ? { description: v.description }
        : v.secret
          ? { description: 'Secret: never stored.' }
          : {}),
      ...(v.default !== undefined ? { default: v.default } : {}),
    }
    if (v.default === undefined) required.push(v.name)
  }
  properties.tabId = { type: 'integer', minimum: 0, description: 'Tab to run in; default: the active tab.' }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }
}

/** The tool's description: what the workflow does and how much it is. */
export function toolDescriptionOf(workflow: Workflow): string {
  const lead = workflow.description || `Replays the workflow ${workflow.name}.`
  return `${lead} Replays ${workflow.steps.length} recorded steps without a model, checking each step's result; stops with a report and a snapshot around the step if one does not hold.`
}

const fill = (text: string, values: Readonly<Record<string, string>>): string =>
  text.replace(/\{\{([a-zA-Z][a-zA-Z0-9_]*)\}\}/g, (whole, name: string) => values[name] ?? whole)

function fillDeep<T>(value: T, values: Readonly<Record<string, string>>): T {
  if (typeof value === 'string') return fill(value, values) as T
  if (Array.isArray(value)) return value.map((v: unknown) => fillDeep(v, values)) as T
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, values)])) as T
  return value
}

export type Resolved = { ok: true; value: WorkflowRunInput } | { ok: false; message: string }

/** The run's plan: every variable given or defaulted, else a refusal naming the missing ones. */
export function resolvePlan(workflow: Workflow, input: Record<string, unknown>): Resolved {
  const values: Record<string, string> = {}
  const missing: string[] = []
  for (const v of workflow.variables) {
    const given = input[v.name]
    if (typeof given === 'string') values[v.name] = given
    else if (v.default !== undefined) values[v.name] = v.default
    else missing.push(v.name)
  }
  if (missing.length)
    return {
      ok: false,
      message: `the workflow ${workflow.name} needs a value for ${missing.join(', ')}; nothing ran`,
    }
  // A target is what the page had, never filled in: only the step's values and post-condition are.
  const steps: ResolvedStep[] = workflow.steps.map(({ target, ...rest }, index) => ({
    ...fillDeep(rest, values),
    ...(target ? { target } : {}),
    index: index + 1,
  }))
  const secrets = workflow.variables
    .filter((v) => v.secret)
    .map((v) => values[v.name]!)
    .filter(Boolean)
  const tabId = input.tabId
  return {
    ok: true,
    value: {
      workflow: workflow.name,
      steps,
      secrets,
      ...(typeof tabId === 'number' ? { tabId } : {}),
    },
  }
}

const quoted = (s: string, max = 60) => JSON.stringify(s.length > max ? `${s.slice(0, max - 1)}…` : s)

/** The element in words: `button "Sign in"`, else what the page had. */
export function targetInWords(step: Step): string {
  const t = step.target
  if (!t) return 'the focused element'
  if (t.describe) return t.describe
  if (t.role && t.name) return `${t.role} ${quoted(t.name)}`
  if (t.label) return `the field ${quoted(t.label)}`
  if (t.text) return quoted(t.text)
  return t.css ?? t.xpath ?? 'an element'
}

/** One step in words, as people read it. Variables stay `{{name}}`. */
export function stepInWords(step: Step): string {
  const inFrame = step.target?.frame?.length ? ' (in a frame)' : ''
  switch (step.action) {
    case 'navigate':
      return `Go to ${step.url ?? ''}`
    case 'click':
      return `Click ${targetInWords(step)}${inFrame}${step.post?.tab ? ', which opens a tab' : ''}`
    case 'fill':
      return step.checked !== undefined
        ? `${step.checked ? 'Check' : 'Uncheck'} ${targetInWords(step)}${inFrame}`
        : `Fill ${targetInWords(step)}${inFrame} with ${step.text ?? ''}`
    case 'drag':
      return `Drag ${targetInWords(step)} onto ${targetInWords({ action: 'click', ...(step.to ? { target: step.to } : {}) })}${inFrame}`
    case 'type':
      return `Type ${step.text ?? ''} into ${targetInWords(step)}${inFrame}${step.submit ? ', then Enter' : ''}`
    case 'select':
      return `Choose ${(step.values ?? []).map((v) => quoted(v)).join(', ')} in ${targetInWords(step)}${inFrame}`
    case 'press':
      return `Press ${step.key ?? ''}${step.target ? ` in ${targetInWords(step)}` : ''}`
    case 'scroll':
      return `Scroll ${step.direction ?? 'down'}${step.target ? ` in ${targetInWords(step)}` : ''}`
    case 'upload':
      return `Upload ${(step.paths ?? []).join(', ')} to ${targetInWords(step)}`
    case 'dialog':
      return `${step.accept === false ? 'Dismiss' : 'Accept'} the dialog${step.text !== undefined ? ` answering ${quoted(step.text)}` : ''}`
    case 'wait':
      return `Wait for ${quoted(step.text ?? '')}`
    case 'switchTab':
      return `Switch to the tab at ${step.url ?? ''}`
    case 'tool':
      return `Call ${step.tool ?? ''}`
    case 'read':
      if (step.text !== undefined) return `Read the lines that show ${quoted(step.text)}`
      if (step.pattern !== undefined) return `Read the lines that match /${step.pattern}/`
      return step.target ? `Read the text of ${targetInWords(step)}${inFrame}` : 'Read the text of the page'
  }
}

/** Origins the plan touches (navigations and tool steps' pages), for the approval card. */
export function originsOf(workflow: Workflow): string[] {
  const origins = new Set<string>()
  for (const step of workflow.steps)
    for (const url of [step.url, step.post?.url])
      if (url)
        try {
          origins.add(new URL(url.replace(/\{\{[^}]*\}\}/g, 'x')).origin)
        } catch {
          // A URL made of a variable: its origin is known only at run time.
        }
  return [...origins]
}

/** The whole plan for a person deciding: origins, steps in words, values (secrets hidden). */
export function planInWords(workflow: Workflow, input: Record<string, unknown>): string[] {
  const values = workflow.variables.map((v) => {
    const given = input[v.name]
    const value = v.secret ? '(secret, not shown)' : typeof given === 'string' ? given : (v.default ?? '')
    return `${v.name} = ${v.secret ? value : quoted(value, 200)}`
  })
  return [
    `Origins: ${originsOf(workflow).join(', ') || '(none named)'}`,
    ...workflow.steps.map((step, i) => `${i + 1}. ${stepInWords(step)}`),
    ...(values.length ? ['Values:', ...values] : []),
  ]
}

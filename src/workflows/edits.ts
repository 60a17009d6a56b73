/**
 * Edits of a saved workflow the side panel asks for (src/ws/workflowMethods.ts), and a person's own
 * demonstration made into a workflow. Pure: a workflow goes in, a new one comes out, or an Error that
 * says what is wrong; the caller writes it through the store, which checks the schema again.
 */
import type { CapturedCall } from '../protocol/workflow'
import type { PersonStep } from '../protocol/workflowPanel'
import { variablesUsed, WORKFLOW_FORMAT_VERSION, type Workflow } from './format'
import { stepInWords } from './plan'
import { buildSteps, type BuiltSteps } from './steps'

const VARIABLE_NAME = /^[a-zA-Z][a-zA-Z0-9_]{0,39}$/
const MAX_HISTORY = 1000

/** The file changed since the panel showed it: an edit of what it no longer shows is refused. */
export function assertUnchanged(workflow: Workflow, seen: string): void {
  if (workflow.updatedAt !== seen)
    throw new Error(`the workflow ${workflow.name} changed since it was shown: look at it again`)
}

/**
 * Without step `index` (from 1). Its target and post-condition go to the history (as a healed
 * locator's do); a variable no step uses any more goes with it.
 */
export function withoutStep(workflow: Workflow, index: number, at = new Date().toISOString()): Workflow {
  const step = workflow.steps[index - 1]
  if (!step) throw new Error(`the workflow ${workflow.name} has no step ${index}`)
  if (workflow.steps.length === 1)
    throw new Error(`step ${index} is the only step of ${workflow.name}: delete the workflow instead`)
  const steps = workflow.steps.filter((_, i) => i !== index - 1)
  const used = variablesUsed(steps)
  return {
    ...workflow,
    steps,
    variables: workflow.variables.filter((v) => used.has(v.name)),
    history: [
      ...workflow.history,
      {
        at,
        step: index,
        change: 'removed' as const,
        note: `removed: ${stepInWords(step)}`.slice(0, 500),
        ...(step.target ? { old: step.target } : {}),
        ...(step.post ? { oldPost: step.post } : {}),
      },
    ].slice(-MAX_HISTORY),
    updatedAt: at,
  }
}

/** Every `{{from}}` in the steps' values and post-conditions (never in targets) made `{{to}}`. */
export function withVariableRenamed(
  workflow: Workflow,
  from: string,
  to: string,
  at = new Date().toISOString(),
): Workflow {
  if (!workflow.variables.some((v) => v.name === from))
    throw new Error(`the workflow ${workflow.name} has no variable ${from.slice(0, 40)}`)
  if (!VARIABLE_NAME.test(to))
    throw new Error(
      `"${to.slice(0, 40)}" is not a variable name: a letter, then letters, digits or _, at most 40 characters`,
    )
  if (from === to) return workflow
  if (workflow.variables.some((v) => v.name === to))
    throw new Error(`the workflow ${workflow.name} has a variable ${to} already`)
  const swap = (value: unknown): unknown => {
    if (typeof value === 'string') return value.split(`{{${from}}}`).join(`{{${to}}}`)
    if (Array.isArray(value)) return value.map(swap)
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]))
    return value
  }
  return {
    ...workflow,
    variables: workflow.variables.map((v) => (v.name === from ? { ...v, name: to } : v)),
    // A target is what the page showed: page text that reads `{{from}}` is not a placeholder.
    steps: workflow.steps.map(({ target, ...rest }) => ({
      ...(swap(rest) as typeof rest),
      ...(target ? { target } : {}),
    })),
    updatedAt: at,
  }
}

/**
 * A person's demonstration as a workflow: each thing they did is taken as the call an agent would have
 * made, through the agent recording's own step builder, so the steps, the variables and the secrets
 * follow the same rules (a password typed becomes a secret variable with no stored value).
 */
export function personWorkflow(
  name: string,
  description: string,
  seen: readonly PersonStep[],
  at = new Date().toISOString(),
): { workflow: Workflow; built: BuiltSteps } {
  const signals = new Map<string, CapturedCall>()
  const calls = seen.map((step, i) => {
    if (step.target) signals.set(String(i), { target: step.target })
    return { id: String(i), tool: step.tool, plugin: 'browser', input: { ...step.input }, text: step.report }
  })
  const built = buildSteps(calls, signals, new Set())
  if (!built.steps.length) throw new Error('the recording has no step a workflow can replay')
  const workflow: Workflow = {
    version: WORKFLOW_FORMAT_VERSION,
    name,
    description,
    permission: 'off',
    recordedBy: 'person',
    createdAt: at,
    updatedAt: at,
    variables: built.variables,
    steps: built.steps,
    history: [],
  }
  return { workflow, built }
}

/**
 * The workflow file, version 1: `~/.bridge/workflows/<name>.json`. Its JSON Schema is WORKFLOW_SCHEMA
 * (docs/workflows.md shows it, `bridge workflow schema` prints it). A file is read through
 * `parseWorkflow`, which refuses any other version and anything the schema does not allow.
 */
import { Type, type Static } from '@sinclair/typebox'
import { PostCondition, Step, Target, WORKFLOW_NAME_MAX, WORKFLOW_NAME_PATTERN } from '../protocol/workflow'
import { compileSchema, type Validation, type Validator } from '../validation'

export const WORKFLOW_FORMAT_VERSION = 1

export const WorkflowName = Type.String({ pattern: WORKFLOW_NAME_PATTERN, maxLength: WORKFLOW_NAME_MAX })

/**
 * A value the steps use as `{{name}}`. A secret has no stored value, ever: each run must give one.
 * Others keep the value recorded as their default.
 */
export const Variable = Type.Object({
  name: Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9_]{0,39}$' }),
  description: Type.Optional(Type.String({ maxLength: 300 })),
  secret: Type.Boolean(),
  default: Type.Optional(Type.String({ maxLength: 20_000 })),
})
export type Variable = Static<typeof Variable>

/** A locator replaced by healing (or by an edit): the old one is kept here. */
export const HistoryEntry = Type.Object({
  at: Type.String({ format: 'date-time' }),
  step: Type.Integer({ minimum: 1 }),
  change: Type.Unsafe<'healed' | 'edited' | 'removed'>({
    type: 'string',
    enum: ['healed', 'edited', 'removed'],
  }),
  note: Type.String({ maxLength: 500 }),
  old: Type.Optional(Target),
  oldPost: Type.Optional(PostCondition),
})
export type HistoryEntry = Static<typeof HistoryEntry>

export const WORKFLOW_SCHEMA = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Literal(WORKFLOW_FORMAT_VERSION),
    name: WorkflowName,
    description: Type.String({ maxLength: 1000 }),
    /** Listed to agents as `workflow_<name>` only when ask or auto; a new workflow is off. */
    permission: Type.Unsafe<'off' | 'ask' | 'auto'>({ type: 'string', enum: ['off', 'ask', 'auto'] }),
    /** Who did it first: an agent through its tool calls, or a person in the side panel. */
    recordedBy: Type.Unsafe<'agent' | 'person' | 'import'>({
      type: 'string',
      enum: ['agent', 'person', 'import'],
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    variables: Type.Array(Variable, { maxItems: 100 }),
    steps: Type.Array(Step, { maxItems: 500 }),
    history: Type.Array(HistoryEntry, { maxItems: 1000 }),
  },
  { $id: 'https://bridge.local/schemas/workflow-1.json', additionalProperties: false },
)
export type Workflow = Static<typeof WORKFLOW_SCHEMA>

let validator: Validator<Workflow> | undefined

/** Checks a parsed file against the schema; a bad one is refused with the first problems named. */
export function parseWorkflow(value: unknown): Validation<Workflow> {
  if (!validator) {
    const compiled = compileSchema<Workflow>(WORKFLOW_SCHEMA, 'workflow')
    if (!compiled.ok) return compiled
    validator = compiled.value
  }
  const version = (value as { version?: unknown } | null)?.version
  if (typeof value === 'object' && value !== null && version !== WORKFLOW_FORMAT_VERSION)
    return {
      ok: false,
      message: `this file is workflow format version ${JSON.stringify(version)}; this bridge reads version ${WORKFLOW_FORMAT_VERSION}`,
    }
  const checked = validator(value)
  if (!checked.ok) return checked
  const names = new Set(checked.value.variables.map((v) => v.name))
  if (names.size !== checked.value.variables.length)
    return { ok: false, message: 'two variables have the same name' }
  const secretDefault = checked.value.variables.find((v) => v.secret && v.default !== undefined)
  if (secretDefault)
    return {
      ok: false,
      message: `the secret variable ${secretDefault.name} has a stored value: a secret is never stored`,
    }
  for (const used of variablesUsed(checked.value.steps))
    if (!names.has(used)) return { ok: false, message: `a step uses {{${used}}}, which is not a variable` }
  return checked
}

/** The names of `{{name}}` placeholders in any string of the steps. */
export function variablesUsed(steps: readonly Step[]): Set<string> {
  const used = new Set<string>()
  const walk = (value: unknown): void => {
    if (typeof value === 'string')
      for (const m of value.matchAll(/\{\{([a-zA-Z][a-zA-Z0-9_]*)\}\}/g)) used.add(m[1]!)
    else if (Array.isArray(value)) value.forEach(walk)
    else if (value && typeof value === 'object') Object.values(value).forEach(walk)
  }
  // A target is what was found on the page, never filled in: only the step's values and post-conditions.
  for (const { target: _target, ...rest } of steps) walk(rest)
  return used
}

/**
 * The /ws requests the side panel's workflow section makes through the service worker: list the saved
 * workflows, edit one (a step removed, a variable renamed, its permission set), delete one, and save a
 * person's own demonstration. The daemon owns the files (src/workflows/store.ts) and checks each
 * request as the CLI does; the extension never writes a workflow. Part of `WsMethods` (./messages.ts).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Permission } from './manifest'
import { Target, WORKFLOW_NAME_MAX, WORKFLOW_NAME_PATTERN } from './workflow'

const Ok = Type.Object({ ok: Type.Boolean() })
const request = <P extends TSchema, Q extends TSchema>(params: P, result: Q) => ({
  role: 'extension' as const,
  params,
  result,
})

const Name = Type.String({ pattern: WORKFLOW_NAME_PATTERN, maxLength: WORKFLOW_NAME_MAX })
/** The file's `updatedAt` the panel showed: an edit of a file changed since then is refused. */
const Seen = Type.String({ maxLength: 40 })
const VariableName = Type.String({ maxLength: 40 })

/** One workflow as the panel lists it: its steps in words, never its targets. */
export const WorkflowView = Type.Object({
  name: Type.String({ maxLength: 200 }),
  /** A file that does not parse: why (it is listed, not shown). */
  broken: Type.Optional(Type.String({ maxLength: 500 })),
  permission: Type.Optional(Permission),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  recordedBy: Type.Optional(Type.String({ maxLength: 20 })),
  updatedAt: Type.Optional(Type.String({ maxLength: 40 })),
  steps: Type.Array(Type.String({ maxLength: 3000 }), { maxItems: 500 }),
  variables: Type.Array(
    Type.Object({
      name: Type.String({ maxLength: 40 }),
      secret: Type.Boolean(),
      default: Type.Optional(Type.String({ maxLength: 20_000 })),
    }),
    { maxItems: 100 },
  ),
})
export type WorkflowView = Static<typeof WorkflowView>

/** The tools a person's demonstration is made of: each event as the call an agent would have made. */
export const PERSON_STEP_TOOLS = [
  'browser_navigate',
  'browser_click',
  'browser_type',
  'browser_select_option',
  'browser_press_key',
  'browser_handle_dialog',
] as const

/**
 * One thing the person did, as the worker saw it: the call it stands for, the element's target
 * signals, and `report`, the page's settle-and-diff after it (the text an agent's call would have
 * returned), from which the daemon takes the step's post-condition as for an agent's recording.
 */
export const PersonStep = Type.Object({
  tool: Type.Unsafe<(typeof PERSON_STEP_TOOLS)[number]>({ type: 'string', enum: [...PERSON_STEP_TOOLS] }),
  input: Type.Object(
    {
      url: Type.Optional(Type.String({ maxLength: 2100 })),
      text: Type.Optional(Type.String({ maxLength: 20_000 })),
      values: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 })),
      key: Type.Optional(Type.String({ maxLength: 60 })),
      /** type: the person pressed Enter in the field right after typing. */
      submit: Type.Optional(Type.Boolean()),
      /** handle_dialog: the person's answer (OK or Cancel) and what they typed into a prompt. */
      accept: Type.Optional(Type.Boolean()),
      promptText: Type.Optional(Type.String({ maxLength: 2000 })),
    },
    { additionalProperties: false },
  ),
  target: Type.Optional(Target),
  report: Type.String({ maxLength: 8_000 }),
})
export type PersonStep = Static<typeof PersonStep>

export const WorkflowPanelMethods = {
  'workflow.list': request(
    Type.Object({}),
    Type.Object({ workflows: Type.Array(WorkflowView, { maxItems: 1000 }) }),
  ),
  'workflow.setPermission': request(Type.Object({ name: Name, permission: Permission }), Ok),
  /** Removes step `step` (from 1); the step's target and post-condition stay in the file's history. */
  'workflow.removeStep': request(
    Type.Object({ name: Name, step: Type.Integer({ minimum: 1, maximum: 500 }), seen: Seen }),
    Ok,
  ),
  'workflow.renameVariable': request(
    Type.Object({ name: Name, from: VariableName, to: VariableName, seen: Seen }),
    Ok,
  ),
  'workflow.remove': request(Type.Object({ name: Name }), Ok),
  /** A person's demonstration (Record / Stop in the side panel), saved as a new workflow, off. */
  'workflow.saveRecording': request(
    Type.Object({
      name: Name,
      description: Type.String({ maxLength: 1000 }),
      steps: Type.Array(PersonStep, { minItems: 1, maxItems: 500 }),
    }),
    Type.Object({
      name: Type.String(),
      steps: Type.Array(Type.String()),
      variables: Type.Array(Type.String()),
    }),
  ),
}

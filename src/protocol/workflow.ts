/**
 * A workflow's steps as the daemon keeps them (`~/.bridge/workflows/<name>.json`, docs/workflows.md)
 * and as the extension replays them (`tool.dispatch` of `workflow_<name>`). Schemas only: the file
 * format around them is src/workflows/format.ts.
 */
import { Type, type Static } from '@sinclair/typebox'

/** A saved workflow is the tool `workflow_<name>`: the rule is ./toolNames's, with every tool name's. */
export { isWorkflowToolName, workflowOfToolName, workflowToolName } from './toolNames'

/** A workflow's name: the tool is `workflow_<name>`, so it follows the tool name pattern. */
export const WORKFLOW_NAME_PATTERN = '^[a-z][a-z0-9]*(_[a-z0-9]+)*$'
export const WORKFLOW_NAME_MAX = 48

const Str = (max: number) => Type.String({ maxLength: max })

/** A box in the top page's CSS pixels, as it was when the step was recorded. */
export const Box = Type.Object({
  x: Type.Number(),
  y: Type.Number(),
  width: Type.Number(),
  height: Type.Number(),
})

/**
 * What a step acts on, as independent signals; the ladder (LADDER) tries them in order. Each is
 * optional: a page gives what it has. `frame` is the path of iframes from the top document to the
 * element's document, each as a CSS selector of the iframe element in its parent.
 */
export const Target = Type.Object({
  testId: Type.Optional(Str(200)),
  role: Type.Optional(Str(60)),
  name: Type.Optional(Str(300)),
  label: Type.Optional(Str(300)),
  text: Type.Optional(Str(300)),
  css: Type.Optional(Str(2000)),
  xpath: Type.Optional(Str(2000)),
  frame: Type.Optional(Type.Array(Str(2000), { maxItems: 5 })),
  box: Type.Optional(Box),
  /** Describes the element to people: `textbox "Email"`. */
  describe: Type.Optional(Str(400)),
  /** A password field: what is typed in it is a secret variable. */
  secret: Type.Optional(Type.Boolean()),
  /**
   * The origin of the element's document when it was recorded: replay acts on no element of another
   * origin (a page that moved the tab elsewhere between steps stops the run).
   */
  origin: Type.Optional(Str(300)),
})
export type Target = Static<typeof Target>

/** The signals in the order replay tries them: the first one present is the step's own locator. */
export const LADDER = ['testId', 'role', 'label', 'text', 'css', 'xpath'] as const
export type Signal = (typeof LADDER)[number]

/**
 * What the step's settle-and-diff saw change when it was recorded, checked after it is replayed.
 * `{{var}}` in a string stands for a variable's value.
 */
export const PostCondition = Type.Object({
  /** The page's URL after the step, without its query and fragment (origin and path). */
  url: Type.Optional(Str(2100)),
  title: Type.Optional(Str(300)),
  /** Text that appeared on the page (a heading, a message, a button's name). */
  appeared: Type.Optional(Type.Array(Str(300), { maxItems: 5 })),
  /** A JavaScript dialog the step opened. */
  dialog: Type.Optional(Type.Object({ type: Str(20), message: Type.Optional(Str(500)) })),
  /** A tab the step opened (a link to a new tab), at this URL (origin and path): replay follows it. */
  tab: Type.Optional(Str(2100)),
})
export type PostCondition = Static<typeof PostCondition>

export const STEP_ACTIONS = [
  'navigate',
  'click',
  'type',
  'fill',
  'select',
  'press',
  'scroll',
  'drag',
  'upload',
  'dialog',
  'wait',
  'switchTab',
  'tool',
  'read',
] as const
export type StepAction = (typeof STEP_ACTIONS)[number]

/** One step. The fields an action does not use are absent. Strings may hold `{{var}}`. */
export const Step = Type.Object({
  action: Type.Unsafe<StepAction>({ type: 'string', enum: STEP_ACTIONS }),
  target: Type.Optional(Target),
  /** navigate, switchTab: the URL (switchTab: of the tab to switch to, origin and path). */
  url: Type.Optional(Str(2100)),
  /**
   * type, fill: the text; dialog: a prompt's answer; wait: the text to wait for; read: the text to
   * find on the page (its matching lines are read).
   */
  text: Type.Optional(Str(20_000)),
  /** fill: a checkbox's or radio button's state (instead of text). */
  checked: Type.Optional(Type.Boolean()),
  /** drag: the element dropped onto. */
  to: Type.Optional(Target),
  /** select: the options' values or labels. */
  values: Type.Optional(Type.Array(Str(2000), { maxItems: 100 })),
  /** press: the key combination. */
  key: Type.Optional(Str(60)),
  /** dialog: accept or dismiss. */
  accept: Type.Optional(Type.Boolean()),
  /** type: press Enter after; clear first (default true). */
  submit: Type.Optional(Type.Boolean()),
  clear: Type.Optional(Type.Boolean()),
  /** scroll. */
  direction: Type.Optional(
    Type.Unsafe<'up' | 'down' | 'left' | 'right'>({ type: 'string', enum: ['up', 'down', 'left', 'right'] }),
  ),
  amount: Type.Optional(Type.Number()),
  /** upload: paths of files, read by the daemon from the upload folders. */
  paths: Type.Optional(Type.Array(Str(4096), { maxItems: 20 })),
  /** read: a regular expression (flag i) to find on the page, instead of text. */
  pattern: Type.Optional(Str(1000)),
  /** tool: a plugin's or site's tool, called with `input` (its strings may hold `{{var}}`). */
  tool: Type.Optional(Str(200)),
  input: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  post: Type.Optional(PostCondition),
})
export type Step = Static<typeof Step>

/**
 * What the extension takes of a recorded call before it acts: the tab it acts in, and the signals of
 * its element (a form's fields, one each; a drag's ends, `target` and `to`).
 */
export interface CapturedCall {
  tab?: { id: number; url: string }
  target?: Target
  fields?: Target[]
  to?: Target
}

/** A file an upload step gives, read by the daemon from the upload folders when the run starts. */
export interface PlannedFile {
  name: string
  mimeType: string
  base64: string
}

/** A step as the extension runs it: the variables filled in, an upload's files read. */
export type ResolvedStep = Step & { index: number; files?: PlannedFile[] }

/** What `tool.dispatch` of a `workflow_<name>` tool carries: the whole plan, values filled in. */
export interface WorkflowRunInput {
  workflow: string
  /**
   * The run's id while it runs: a `tool` step is called by the daemon (`workflow.toolStep` with this
   * id and the step's number), through the path every call takes, with the input the daemon planned.
   */
  run?: string
  steps: ResolvedStep[]
  /** A step's text to leave out of reports (secrets, by value). */
  secrets: string[]
  tabId?: number
}

/** One step's outcome in a run. */
export interface StepOutcome {
  index: number
  ok: boolean
  durationMs: number
  /** Set when the step's first signal missed and another found it: the target as found now. */
  healed?: { from: Signal; by: Signal; target: Target }
  error?: { code: string; message: string }
}

/**
 * What a `read` step read: the lines that matched its text, or its element's (or the page's) text.
 * Page content: the agent treats it as data, never as instructions.
 */
export interface ReadOutcome {
  step: number
  text: string
}

/** Where a run stopped, for the agent to go on by hand. */
export interface StopReport {
  step: number
  /** The step in words. */
  action: string
  reason: 'not_found' | 'ambiguous' | 'post_condition' | 'action_failed' | 'origin_changed'
  message: string
  expected?: PostCondition
  /** A compact snapshot around where the target was, with refs. */
  page: string
}

/** What the extension answers a run with. */
export interface WorkflowRunOutput {
  /** The run's id, as given: the daemon forgets the run when its result comes back. */
  run?: string
  ok: boolean
  steps: StepOutcome[]
  /** What the run's read steps read, in order. */
  read?: ReadOutcome[]
  stopped?: StopReport
  /** The tab the run ended in: given when it stopped, or when it ended in another tab than it began in. */
  tabId?: number
}

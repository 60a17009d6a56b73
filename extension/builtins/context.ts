import type { LogLevel } from '../../src/protocol/messages'
import type {
  BrowserToolDefinition,
  BrowserToolGroups,
  BrowserToolInput,
  BrowserToolOutput,
} from '../../src/tools'

/** What the dispatcher hands a built-in tool: its dispatch id, the caller, progress reports and logs. */
export interface BuiltinContext {
  dispatchId: string
  /** The calling MCP client's name and its session, when the daemon knows them (tab groups per agent). */
  client?: string
  session?: string
  progress(progress: number, total?: number, message?: string): void
  log(level: LogLevel, message: string, data?: unknown): void
  /** Hears the origins a tab tool's result was read from (the page's before and after): its data-flow labels. */
  labelOrigins?(origins: string[]): void
  /** A running workflow's tool step: the daemon calls the tool its plan holds (`workflow.toolStep`). */
  toolStep?(run: string, step: number): Promise<ToolStepAnswer>
  /**
   * A workflow's replay (./workflowReplay.ts): whether the step's post-condition shows. An action's
   * settle wait ends once it does and nothing the action started is loading (./settleWait.ts).
   */
  settledWhen?: () => Promise<boolean>
}

/** The daemon's answer to a workflow's tool step. */
export interface ToolStepAnswer {
  ok: boolean
  output?: unknown
  error?: { code: string; message: string }
}

export type BuiltinHandler = (input: never, ctx: BuiltinContext) => Promise<unknown>

/**
 * The handlers of one module of tool definitions (`src/tools/<group>.ts`), keyed like its exports: the
 * type checker makes sure every definition has exactly one handler taking its input and, for a tool
 * that declares an output, returning that shape (the daemon checks it again at run time).
 */
export type Handlers<D extends Record<string, BrowserToolDefinition>> = {
  [K in keyof D]: (input: BrowserToolInput<D[K]>, ctx: BuiltinContext) => Promise<BrowserToolOutput<D[K]>>
}

/**
 * The one table of built-in handlers (./index.ts): `extension/builtins/<group>.ts` for each
 * `src/tools/<group>.ts`. A group or a tool with a definition and no handler does not type-check.
 */
export type HandlerTable = { [G in keyof BrowserToolGroups]: Handlers<BrowserToolGroups[G]> }

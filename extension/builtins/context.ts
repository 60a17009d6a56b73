import type { LogLevel } from '../../src/protocol/messages'

/** What the dispatcher hands a built-in tool: its dispatch id, progress reports and logs to the agent. */
export interface BuiltinContext {
  dispatchId: string
  progress(progress: number, total?: number, message?: string): void
  log(level: LogLevel, message: string, data?: unknown): void
}

export type BuiltinHandler = (input: never, ctx: BuiltinContext) => Promise<unknown>

import { randomUUID } from 'node:crypto'
import { fromCallback, fromPromise, type ActorRefFrom, type AnyActorRef } from 'xstate'
import { childId, type bridgeSystemMachine } from '../../machines/bridgeSystemMachine'
import {
  toolInvocationMachine,
  type StepResult,
  type ToolFailure,
  type ToolInvocationEvent,
  type ToolInvocationInput,
  type ToolOutcome,
} from '../../machines/toolInvocationMachine'
import type { AuditLog } from '../audit'
import { withToolPermission } from '../config/permissions'
import type { Config } from '../config/schema'
import { log } from '../log'
import {
  BROWSER_PLUGIN,
  CATEGORY_BY_TOOL_ERROR,
  JsonRpcErrorCode,
  type Decision,
  type ToolErrorCode,
} from '../protocol'
import { effectivePermission, findCatalogTool, type CatalogSource, type CatalogTool } from '../ws/catalog'
import type { ExtensionLink } from '../ws/extensionLink'
import { RpcError } from '../ws/peer'
import { createBrowserValidators } from './browserValidators'
import type { ToolPathLimits } from './limits'

const logger = log.withTag('tools')

export interface ProgressUpdate {
  progress: number
  total?: number
  message?: string
}

export interface ToolCallRequest {
  name: string
  input: unknown
  /** Present when the MCP request carried `_meta.progressToken`. */
  sendProgress?: (update: ProgressUpdate) => void
  /** Aborts when the client cancels or its session closes. */
  signal?: AbortSignal
}

export interface ToolCallerDeps {
  /** The root actor system: every call runs as its child `toolInvocation:<uuid>`. */
  system(): ActorRefFrom<typeof bridgeSystemMachine>
  catalog: CatalogSource
  link: ExtensionLink
  audit: AuditLog
  limits: ToolPathLimits
  updateConfig(mutate: (current: Config) => Config): Promise<unknown>
  /** Permissions changed (allow_always): plugins.changed and tools/list_changed. */
  onConfigChanged(): void
}

const failure = (code: ToolErrorCode, message: string): ToolFailure => ({
  code,
  message,
  ...(CATEGORY_BY_TOOL_ERROR[code] ? { category: CATEGORY_BY_TOOL_ERROR[code] } : {}),
})
const refuse = (code: ToolErrorCode, message: string): StepResult => ({
  ok: false,
  error: failure(code, message),
})

/** Maps the extension's answer to tool.dispatch onto a failure. */
function dispatchFailure(error: unknown): ToolFailure {
  if (!(error instanceof RpcError)) return failure('tool_error', 'the extension could not run the tool')
  if (error.code === JsonRpcErrorCode.tabClosed) return failure('tab_closed', error.message)
  if (error.code === JsonRpcErrorCode.tabUnavailable) return failure('tab_unavailable', error.message)
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as {
    category?: unknown
  }
  return {
    code: 'tool_error',
    message: error.message,
    ...(typeof data.category === 'string' ? { category: data.category } : {}),
  }
}

/**
 * Runs MCP tool calls as `toolInvocation:<uuid>` children of the root system, each with its own
 * real effects provided: the catalog for validation and permissions, the extension link for
 * approvals and dispatch, the audit log. The root stops a call's child once it ends. Resolves every
 * call exactly once, after its audit entry is on disk.
 */
export class ToolCaller {
  private readonly running = new Map<string, ActorRefFrom<typeof toolInvocationMachine>>()
  private readonly validateBrowserInput

  constructor(private readonly deps: ToolCallerDeps) {
    this.validateBrowserInput = createBrowserValidators(() => deps.catalog.browserTools())
    // Compiling the built-in validators takes a moment: do it now rather than on the first call.
    setImmediate(() => this.validateBrowserInput('', {}))
  }

  get inFlight(): number {
    return this.running.size
  }

  call(request: ToolCallRequest): Promise<ToolOutcome | undefined> {
    const { deps } = this
    const invocationId = randomUUID()
    const startedAt = Date.now()
    const tool = findCatalogTool(deps.catalog, request.name)
    const plugin = tool?.plugin ?? request.name.split('_')[0] ?? request.name
    // The tool name on the wire: base name for plugin tools, the full name for built-ins.
    const wireTool = tool?.plugin === BROWSER_PLUGIN ? tool.fullName : (tool?.key ?? request.name)
    let waitingTicks = 0

    return new Promise((resolve) => {
      let settled = false
      /** Audits the outcome, then answers: exactly once per call, whatever path got here. */
      const settle = (outcome: ToolOutcome | undefined) => {
        if (settled) return
        settled = true
        this.running.delete(invocationId)
        request.signal?.removeEventListener('abort', onAbort)
        const error = outcome && !outcome.ok ? outcome.error : undefined
        void deps.audit
          .record({
            timestamp: new Date().toISOString(),
            tool: request.name.slice(0, 256),
            plugin: plugin.slice(0, 256),
            success: outcome?.ok === true,
            durationMs: Date.now() - startedAt,
            ...(error ? { error } : {}),
          })
          .then(() => resolve(outcome))
      }
      const logic = toolInvocationMachine.provide({
        actors: {
          validate: fromPromise(() => Promise.resolve(this.validate(tool, request))),
          checkPermission: fromPromise(() =>
            Promise.resolve({
              permission: tool
                ? effectivePermission(deps.catalog, tool.plugin, tool.key, tool.pluginBuild)
                : 'off',
              extensionConnected: deps.link.connected,
            }),
          ),
          prepareDispatch: fromPromise(() => Promise.resolve(this.prepareDispatch(plugin))),
          dispatch: fromCallback<ToolInvocationEvent, ToolInvocationInput>(({ sendBack }) => {
            const sent = deps.link.request('tool.dispatch', {
              dispatchId: invocationId,
              plugin,
              tool: wireTool,
              input: request.input,
            })
            if (!sent) {
              sendBack({ type: 'extension.lost' })
              return
            }
            sent.result.then(
              (result) =>
                sendBack({
                  type: 'dispatch.succeeded',
                  output: (result as { output?: unknown }).output ?? null,
                }),
              (error: unknown) => sendBack({ type: 'dispatch.failed', error: dispatchFailure(error) }),
            )
            return () => sent.forget()
          }),
        },
        actions: {
          requestApproval: () =>
            void deps.link.notify('confirmation.request', {
              id: invocationId,
              plugin,
              tool: request.name,
              params: request.input,
              expiresAt: Date.now() + deps.limits.approvalTimeoutMs,
            }),
          cancelApproval: (_, { reason }) =>
            void deps.link.notify('confirmation.cancel', { id: invocationId, reason }),
          reportWaitingForApproval: () =>
            request.sendProgress?.({ progress: ++waitingTicks, message: 'waiting for approval' }),
          persistAlways: () => {
            if (!tool) return
            deps
              .updateConfig((config) => ({
                ...config,
                permissions: withToolPermission(
                  config.permissions,
                  tool.plugin,
                  tool.key,
                  'auto',
                  tool.pluginBuild,
                ),
              }))
              .then(
                () => deps.onConfigChanged(),
                (error: unknown) => logger.error(`could not save "always allow" for ${request.name}:`, error),
              )
          },
          announceStart: () =>
            void deps.link.notify('tool.invocationStart', {
              dispatchId: invocationId,
              plugin,
              tool: wireTool,
            }),
          forwardProgress: (_, update) => request.sendProgress?.(update),
          releaseSlot: () => deps.link.releaseSlot(plugin),
          announceEnd: ({ context }) =>
            void deps.link.notify('tool.invocationEnd', {
              dispatchId: invocationId,
              plugin,
              tool: wireTool,
              success: context.outcome?.ok === true,
              durationMs: Date.now() - startedAt,
            }),
          recordOutcome: ({ context }) => settle(context.outcome),
        },
        delays: {
          callTimeout: deps.limits.toolTimeoutMs,
          maxDuration: deps.limits.toolMaxDurationMs,
          approvalTimeout: deps.limits.approvalTimeoutMs,
          approvalProgressInterval: deps.limits.approvalProgressIntervalMs,
        },
      })
      // Listened to only once the child exists (below); settle may remove it before that.
      const onAbort = () => actor?.send({ type: 'cancel', reason: 'client cancelled' })
      const system = deps.system()
      system.send({
        type: 'toolInvocation.spawn',
        logic,
        input: {
          invocationId,
          plugin,
          tool: request.name,
          input: request.input,
          hasProgressToken: !!request.sendProgress,
        },
      })
      const children = system.getSnapshot().children as Record<string, AnyActorRef | undefined>
      const actor = children[childId('toolInvocation', invocationId)] as
        ActorRefFrom<typeof toolInvocationMachine> | undefined
      const internalFailure: ToolOutcome = {
        ok: false,
        error: { ...failure('tool_error', 'the call failed inside the daemon'), category: 'internal' },
      }
      if (!actor) {
        logger.error(`call of ${request.name.slice(0, 128)} could not start inside the daemon`)
        return settle(internalFailure)
      }
      const child = actor
      this.running.set(invocationId, child)
      request.signal?.addEventListener('abort', onAbort, { once: true })
      // A bug in an effect must not leave the client waiting: answer with an internal tool_error.
      const failed = (error: unknown) => {
        logger.error(`call of ${request.name.slice(0, 128)} failed inside the daemon:`, error)
        if (child.getSnapshot().context.dispatched) deps.link.releaseSlot(plugin)
        settle(internalFailure)
      }
      child.subscribe({ error: failed })
      // The child started when spawned: it may have failed before this subscription.
      const started = child.getSnapshot()
      if (started.status === 'error') failed(started.error)
      if (request.signal?.aborted) onAbort()
    })
  }

  /** tool.progress from the extension. */
  progress(dispatchId: string, update: ProgressUpdate): void {
    this.running.get(dispatchId)?.send({ type: 'tool.progress', ...update })
  }

  /** confirmation.response from the side panel. */
  decide(id: string, decision: Decision): void {
    this.running.get(id)?.send({ type: 'confirmation.response', decision })
  }

  /** The extension went away: every call waiting on it fails now. */
  extensionLost(): void {
    for (const actor of [...this.running.values()]) actor.send({ type: 'extension.lost' })
  }

  private validate(tool: CatalogTool | undefined, request: ToolCallRequest): StepResult {
    if (!tool) return refuse('unknown_tool', `no tool named "${request.name.slice(0, 128)}"`)
    const check =
      tool.plugin === BROWSER_PLUGIN
        ? this.validateBrowserInput(tool.fullName, request.input)
        : (this.deps.catalog
            .plugins()
            .find((p) => p.name === tool.plugin)
            ?.validate(tool.key, request.input) ?? {
            ok: false as const,
            message: 'the plugin is no longer loaded',
          })
    return check.ok ? { ok: true } : refuse('invalid_input', check.message)
  }

  /** Extension, tab state, then a slot: the order a user would check them in. */
  private prepareDispatch(plugin: string): StepResult {
    const { link } = this.deps
    if (!link.connected)
      return refuse('extension_not_connected', 'the bridge extension is not connected to the daemon')
    if (plugin !== BROWSER_PLUGIN) {
      const state = link.tab(plugin)?.state ?? 'closed'
      if (state === 'closed')
        return refuse('tab_closed', `no open tab matches the ${plugin} plugin; open the site first`)
      if (state === 'unavailable')
        return refuse(
          'tab_unavailable',
          `the ${plugin} tab is not ready: sign in to the site, or reload its tab`,
        )
    }
    if (!link.acquireSlot(plugin))
      return refuse('plugin_busy', `${plugin} already runs 5 calls; wait for in-flight calls to finish`)
    return { ok: true }
  }
}

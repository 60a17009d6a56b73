/**
 * The real effects of every tool call, provided once to `toolInvocationMachine` (src/daemon.ts) behind
 * narrow interfaces: the tool catalog (validation, permissions), the extension port (approvals,
 * `tool.dispatch`), the plugins' tabs as the extension reports them, and the audit log. Each effect
 * reads the call's own data from the actor's context.
 */
import { fromCallback, fromPromise } from 'xstate'
import {
  toolInvocationMachine,
  type ApprovalCheck,
  type PermissionCheck,
  type StepResult,
  type ToolFailure,
  type ToolInvocationContext,
  type ToolInvocationEvent,
  type ToolInvocationInput,
} from '../../machines/toolInvocationMachine'
import type { AuditEntry } from '../audit'
import type { PluginBuildIdentity } from '../config/permissions'
import type { CatalogTool, ToolCatalog } from '../catalog/toolCatalog'
import { neutralizeText } from '../protocol/untrustedText'
import {
  BROWSER_PLUGIN,
  JsonRpcErrorCode,
  MAX_APPROVALS_WAITING_PER_CLIENT,
  MAX_INPUT_DEPTH,
  splitToolName,
} from '../protocol'
import { RpcError } from '../rpc/peer'
import type { ExtensionPort, TabSnapshot } from '../ws/extensionLink'
import type { ApprovalBroker } from './approvalBroker'
import { createApprovalQueue } from './approvalQueue'
import { tooDeep } from './inputDepth'
import type { ToolPathLimits } from './limits'
import { chooseTab } from './tabChoice'

export interface InvocationEffectsDeps {
  catalog: ToolCatalog
  port: ExtensionPort
  /** A plugin's tabs as the extension last reported them (its pluginTab actor); undefined when unknown. */
  tabs(plugin: string): TabSnapshot | undefined
  audit: { record(entry: AuditEntry): Promise<void> }
  /** "Always allow": sets the tool to auto for good (and tells everyone the permissions changed). */
  allowAlways(plugin: string, tool: string, build: PluginBuildIdentity | undefined): void
  limits: Pick<
    ToolPathLimits,
    'toolTimeoutMs' | 'toolMaxDurationMs' | 'approvalTimeoutMs' | 'approvalProgressIntervalMs'
  >
  /** Hears each approval open and close, for clients that show approvals themselves. */
  approvals?: Pick<ApprovalBroker, 'opened' | 'closed'>
}

/** `tool.dispatch` and client/session fields are capped by the protocol schema. */
const WIRE_NAME_MAX = 64

/** Maps the extension's answer to tool.dispatch onto a failure. */
export function dispatchFailure(error: unknown): ToolFailure {
  if (!(error instanceof RpcError))
    return { code: 'tool_error', message: 'the extension could not run the tool' }
  if (error.code === JsonRpcErrorCode.tabClosed)
    return { code: 'tab_closed', message: error.message, category: 'tab' }
  if (error.code === JsonRpcErrorCode.tabUnavailable)
    return { code: 'tab_unavailable', message: error.message, category: 'tab' }
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as {
    category?: unknown
  }
  return {
    code: 'tool_error',
    message: error.message,
    ...(typeof data.category === 'string' ? { category: data.category } : {}),
  }
}

/** The audit entry of a call that ended with `outcome`. */
export function auditEntryOf(
  call: ToolInvocationInput,
  outcome: ToolInvocationContext['outcome'],
): AuditEntry {
  const error = outcome && !outcome.ok ? outcome.error : undefined
  return {
    timestamp: new Date().toISOString(),
    tool: call.tool.slice(0, 256),
    plugin: call.plugin.slice(0, 256),
    client: call.client.slice(0, 256),
    success: outcome?.ok === true,
    durationMs: Date.now() - call.startedAt,
    ...(error ? { error } : {}),
  }
}

const refuse = (code: 'unknown_tool' | 'invalid_input', message: string): StepResult => ({
  ok: false,
  error: { code, message, category: 'validation' },
})

/** toolInvocationMachine with the daemon's effects, for the root system's `toolInvocation` children. */
export function provideToolInvocation(deps: InvocationEffectsDeps) {
  const { catalog, port, limits } = deps
  const approvals = createApprovalQueue(MAX_APPROVALS_WAITING_PER_CLIENT)
  /** The tool's name in `tool.dispatch`: the base name for plugin tools, the full name for built-ins. */
  const wireName = (call: ToolInvocationInput): string =>
    catalog.get(call.tool)?.key ??
    (call.plugin === BROWSER_PLUGIN ? call.tool : splitToolName(call.tool)?.tool) ??
    call.tool

  /** A ready tab to name in the approval (plugin tools), then a place in the client's approval queue. */
  const prepareApproval = (call: ToolInvocationInput): ApprovalCheck => {
    let tab: ApprovalCheck & { ok: true }
    if (call.plugin === BROWSER_PLUGIN) tab = { ok: true }
    else {
      const reported = deps.tabs(call.plugin)
      const chosen = chooseTab(reported?.tabs ?? [])
      if (!chosen)
        return {
          ok: false,
          error:
            (reported?.tabs.length ?? 0) === 0
              ? {
                  code: 'tab_closed',
                  message: `no open tab matches the ${call.plugin} plugin; open the site first, then call again`,
                  category: 'tab',
                }
              : {
                  code: 'tab_unavailable',
                  message: `the ${call.plugin} tab is not ready: sign in to the site, or reload its tab, then call again`,
                  category: 'tab',
                },
        }
      tab = { ok: true, tab: { tabId: chosen.tabId, title: chosen.title, url: chosen.url } }
    }
    if (!approvals.reserve(call.client, call.invocationId))
      return {
        ok: false,
        error: {
          code: 'approval_queue_full',
          message: `${MAX_APPROVALS_WAITING_PER_CLIENT} calls of ${call.client.slice(0, WIRE_NAME_MAX)} already wait for approval in the bridge side panel; wait until the user answers them (or they time out) before calling again`,
          category: 'concurrency',
        },
      }
    return tab
  }

  /** What a built-in's daemon-side step made of a call's input (files read by path), until it is recorded. */
  const preparedInputs = new Map<string, unknown>()
  /** Valid input through the tool's daemon-side step, if it has one: its refusal is invalid input. */
  const prepareInput = async (call: ToolInvocationInput, tool: CatalogTool, signal: AbortSignal) => {
    const prepared = await tool.prepare?.(call.input)
    if (prepared && !prepared.ok) return refuse('invalid_input', prepared.message)
    if (prepared && !signal.aborted) preparedInputs.set(call.invocationId, prepared.value)
    return { ok: true as const }
  }

  return toolInvocationMachine.provide({
    actors: {
      validate: fromPromise<StepResult, ToolInvocationInput>(({ input: call, signal }) => {
        const tool = catalog.get(call.tool)
        if (!tool)
          return Promise.resolve(refuse('unknown_tool', `no tool named "${call.tool.slice(0, 128)}"`))
        // Before the schema: a validator walks the value recursively, and so would whatever follows.
        if (tooDeep(call.input) !== null)
          return Promise.resolve(
            refuse('invalid_input', `the arguments are nested deeper than ${MAX_INPUT_DEPTH} levels`),
          )
        const check = tool.validate(call.input)
        if (!check.ok) return Promise.resolve(refuse('invalid_input', check.message))
        return prepareInput(call, tool, signal)
      }),
      checkPermission: fromPromise<PermissionCheck, ToolInvocationInput>(({ input: call }) =>
        Promise.resolve({
          permission: catalog.get(call.tool)?.permission ?? 'off',
          extensionConnected: port.connected,
        }),
      ),
      // Checked and reserved in one synchronous step, so concurrent calls cannot overfill a queue.
      prepareApproval: fromPromise<ApprovalCheck, ToolInvocationInput>(({ input: call }) =>
        Promise.resolve(prepareApproval(call)),
      ),
      dispatch: fromCallback<ToolInvocationEvent, ToolInvocationContext>(({ sendBack, input: call }) => {
        const sent = port.request('tool.dispatch', {
          dispatchId: call.invocationId,
          plugin: call.plugin,
          tool: wireName(call),
          input: preparedInputs.get(call.invocationId) ?? call.input,
          // An approved call runs in the tab the user saw, or fails with tab_closed.
          ...(call.tab ? { tabId: call.tab.tabId } : {}),
          client: call.client.slice(0, WIRE_NAME_MAX),
          session: call.session.slice(0, WIRE_NAME_MAX),
        })
        if (!sent) {
          sendBack({ type: 'extension.lost' })
          return
        }
        sent.result.then(
          (result) => {
            const output = result.output ?? null
            // A declared output schema is a promise to the agent: an output that breaks it stops here.
            const checked = catalog.get(call.tool)?.checkOutput?.(output) ?? { ok: true }
            if (checked.ok) sendBack({ type: 'dispatch.succeeded', output })
            else
              sendBack({
                type: 'dispatch.failed',
                error: {
                  code: 'invalid_output',
                  message: `the tool's output does not match its output schema: ${neutralizeText(checked.message, 300)}`,
                  category: 'validation',
                },
              })
          },
          (error: unknown) => sendBack({ type: 'dispatch.failed', error: dispatchFailure(error) }),
        )
        return () => sent.forget()
      }),
      record: fromPromise<void, ToolInvocationContext>(({ input: call }) => {
        preparedInputs.delete(call.invocationId)
        return deps.audit.record(auditEntryOf(call, call.outcome))
      }),
    },
    actions: {
      requestApproval: ({ context: call }) => {
        const request = {
          id: call.invocationId,
          plugin: call.plugin,
          tool: call.tool,
          params: call.input,
          expiresAt: Date.now() + limits.approvalTimeoutMs,
          client: call.client.slice(0, WIRE_NAME_MAX),
          ...(call.tab ? { tab: call.tab } : {}),
        }
        void port.notify('confirmation.request', request)
        deps.approvals?.opened(request)
      },
      releaseApproval: ({ context: call }) => {
        approvals.release(call.invocationId)
        deps.approvals?.closed(call.invocationId)
      },
      cancelApproval: ({ context: call }, { reason }) =>
        void port.notify('confirmation.cancel', { id: call.invocationId, reason }),
      persistAlways: ({ context: call }) => {
        const tool = catalog.get(call.tool)
        if (tool) deps.allowAlways(tool.plugin, tool.key, tool.pluginBuild)
      },
      announceStart: ({ context: call }) =>
        void port.notify('tool.invocationStart', {
          dispatchId: call.invocationId,
          plugin: call.plugin,
          tool: wireName(call),
        }),
      // The end leaves with the next frame (or within a few ms): the answer does not wait for it.
      announceEnd: ({ context: call }) =>
        void port.notify(
          'tool.invocationEnd',
          {
            dispatchId: call.invocationId,
            plugin: call.plugin,
            tool: wireName(call),
            success: call.outcome?.ok === true,
            durationMs: Date.now() - call.startedAt,
          },
          { soon: true },
        ),
    },
    delays: {
      callTimeout: limits.toolTimeoutMs,
      maxDuration: limits.toolMaxDurationMs,
      approvalTimeout: limits.approvalTimeoutMs,
      approvalProgressInterval: limits.approvalProgressIntervalMs,
    },
  })
}

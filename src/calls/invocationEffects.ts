/**
 * The real effects of every tool call, provided once to `toolInvocationMachine` (src/daemon.ts) behind
 * narrow interfaces: the tool catalog (validation, permissions), the extension port (approvals,
 * `tool.dispatch`), the plugins' tabs as the extension reports them, and the audit log. Each effect
 * reads the call's own data from the actor's context.
 */
import { assign, fromPromise } from 'xstate'
import { approvalMachine } from '../../machines/approvalMachine'
import {
  FAILURES,
  toolInvocationMachine,
  type CheckVerdict,
  type PreparedInput,
  type StepResult,
  type ToolFailure,
  type ToolInvocationContext,
  type ToolInvocationInput,
  type ToolOutcome,
} from '../../machines/toolInvocationMachine'
import type { AuditEntry } from '../audit'
import type { ClientScopeGate } from '../config/clientScopes'
import { allowAlwaysPersists, withToolPermission } from '../config/permissions'
import { withSiteToolPermission } from '../config/sitePermissions'
import type { Config } from '../config/schema'
import type { ToolCatalog } from '../catalog/toolCatalog'
import {
  BROWSER_PLUGIN,
  JsonRpcErrorCode,
  MAX_APPROVALS_WAITING_PER_CLIENT,
  MAX_INPUT_DEPTH,
  splitToolName,
  type ApprovalRequest,
  type SiteToolAnnotations,
  type ToolAnnotations,
} from '../protocol'
import { RpcError } from '../rpc/peer'
import { log } from '../log'
import type { SystemLookup } from '../../machines/systemActors'
import type { GuardStep } from '../guard/guardStep'
import { neutralizeText } from '../protocol/untrustedText'
import { tooDeep } from '../validation'
import { createApprovalQueue } from './approvalQueue'
import type { ExtensionPort } from './extensionPort'
import type { ToolPathLimits } from './limits'

const logger = log.withTag('tools')

export interface InvocationEffectsDeps {
  catalog: ToolCatalog
  /** The active extension in the actor system an effect runs in (src/ws/extensionSockets.ts). */
  portOf(system: SystemLookup): ExtensionPort
  /** Writes an entry synchronously (src/audit: in the kernel on return, on disk within the group commit's window). */
  audit: { record(entry: AuditEntry): void }
  /** "Always allow" saves the tool as auto through the config store, then everyone hears it. */
  updateConfig(mutate: (current: Config) => Config): Promise<Config>
  onConfigChanged(): void
  /** Client scopes (src/config/clientScopes.ts): a call out of scope fails before validation. */
  scopes?: Pick<ClientScopeGate, 'refusal' | 'describe'>
  limits: Pick<
    ToolPathLimits,
    'toolTimeoutMs' | 'toolMaxDurationMs' | 'approvalTimeoutMs' | 'approvalProgressIntervalMs'
  >
  /** The data-flow guard (src/guard): before dispatch, what the call carries and where; after, what the client got. */
  guard?: Pick<GuardStep, 'screen' | 'decide' | 'answered' | 'labels' | 'readable' | 'finished'>
}

/** `tool.dispatch` and client/session fields are capped by the protocol schema. */
const WIRE_NAME_MAX = 64

/** `{ origin }` of a tab's URL, for tool.dispatch; nothing for a URL without one. */
function originOf(url: string): { origin?: string } {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? {} : { origin }
  } catch {
    return {}
  }
}

/** Maps the extension's answer to tool.dispatch onto a failure. */
export function dispatchFailure(error: unknown, site = false): ToolFailure {
  if (!(error instanceof RpcError))
    return { code: 'tool_error', message: 'the extension could not run the tool' }
  if (error.code === JsonRpcErrorCode.tabClosed)
    return { code: 'tab_closed', message: error.message, category: 'tab' }
  if (error.code === JsonRpcErrorCode.tabUnavailable)
    return { code: 'tab_unavailable', message: error.message, category: 'tab' }
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as {
    category?: unknown
    code?: unknown
  }
  // The extension's own refusal of a site's tool whose declaration changed (a plugin's code is its own).
  if (site && data.code === 'declaration_changed')
    return { code: 'declaration_changed', message: error.message, category: 'permission' }
  return {
    code: 'tool_error',
    message: error.message,
    ...(typeof data.category === 'string' ? { category: data.category } : {}),
  }
}

/**
 * The audit entry of a call that ended with `outcome`. `durationMs` is the call's own time: the time a
 * person took to answer its approval (`approvalMs`, when it asked) is not part of it.
 */
export function auditEntryOf(
  call: ToolInvocationInput,
  outcome: ToolInvocationContext['outcome'],
  approvalMs?: number,
  /** A site's own tool: the hash of the declaration the call was checked with (and dispatched with). */
  declared?: string,
): AuditEntry {
  const error = outcome && !outcome.ok ? outcome.error : undefined
  return {
    timestamp: new Date().toISOString(),
    tool: call.tool.slice(0, 256),
    plugin: call.plugin.slice(0, 256),
    client: call.client.slice(0, 256),
    success: outcome?.ok === true,
    durationMs: Math.max(0, Date.now() - call.startedAt - (approvalMs ?? 0)),
    ...(approvalMs === undefined ? {} : { approvalMs }),
    ...(declared === undefined ? {} : { declared }),
    ...(error ? { error } : {}),
  }
}

/** The declaration hash a site tool's call was checked with; undefined for any other call. */
const declaredOf = (call: ToolInvocationContext): string | undefined =>
  call.verdict?.ok === true ? call.verdict.declared : undefined

/** A site's read-only and destructive hints as the card's annotations (its other hints are not MCP's). */
function siteHints(hints: SiteToolAnnotations): ToolAnnotations {
  return {
    ...(hints.readOnlyHint !== undefined ? { readOnlyHint: hints.readOnlyHint } : {}),
    ...(hints.destructiveHint !== undefined ? { destructiveHint: hints.destructiveHint } : {}),
  }
}

const refuse = (
  code: 'unknown_tool' | 'invalid_input',
  message: string,
): { ok: false; error: ToolFailure } => ({
  ok: false,
  error: { code, message, category: 'validation' },
})

/** toolInvocationMachine with the daemon's effects, for the root system's `toolInvocation` children. */
export function provideToolInvocation(deps: InvocationEffectsDeps) {
  const { catalog, limits } = deps
  const approvals = createApprovalQueue(MAX_APPROVALS_WAITING_PER_CLIENT)
  /** The tool's name in `tool.dispatch`: the base name for plugin tools, the full name for built-ins. */
  const wireName = (call: ToolInvocationInput): string =>
    catalog.get(call.tool)?.key ??
    (call.plugin === BROWSER_PLUGIN ? call.tool : splitToolName(call.tool)?.tool) ??
    call.tool

  /** A place in the client's approval queue, taken in one synchronous step so calls cannot overfill it. */
  const reserveApproval = (call: ToolInvocationInput): StepResult =>
    approvals.reserve(call.client, call.invocationId)
      ? { ok: true }
      : {
          ok: false,
          error: {
            code: 'approval_queue_full',
            message: `${MAX_APPROVALS_WAITING_PER_CLIENT} calls of ${call.client.slice(0, WIRE_NAME_MAX)} already wait for approval in the bridge side panel; wait until the user answers them (or they time out) before calling again`,
            category: 'concurrency',
          },
        }

  /** Validation and the permission check, one synchronous step (a bug in it fails the call as internal). */
  const check = (call: ToolInvocationInput, system: SystemLookup): CheckVerdict => {
    const tool = catalog.get(call.tool)
    if (!tool) return refuse('unknown_tool', `no tool named "${call.tool.slice(0, 128)}"`)
    const outOfScope = deps.scopes?.refusal(call.client, call.tool, call.input)
    if (outOfScope !== undefined)
      return { ok: false, error: { code: 'out_of_scope', message: outOfScope, category: 'permission' } }
    // Before the schema: a validator walks the value recursively, and so would whatever follows.
    if (tooDeep(call.input) !== null)
      return refuse('invalid_input', `the arguments are nested deeper than ${MAX_INPUT_DEPTH} levels`)
    const valid = tool.validate(call.input)
    if (!valid.ok) return refuse('invalid_input', valid.message)
    return {
      ok: true,
      permission: tool.permission,
      extensionConnected: deps.portOf(system).connected,
      // The guard's step runs with the tool's own preparation, before any approval; it screens every
      // call, those with a preparation of their own (uploads, workflows) too.
      prepare: deps.guard?.screen(call, tool) === true || tool.prepare !== undefined,
      ...(tool.site ? { declared: tool.site.hash } : {}),
    }
  }

  /** Valid input through the tool's daemon-side step: its refusal is invalid input. */
  const prepareInput = async (call: ToolInvocationInput, system: SystemLookup): Promise<PreparedInput> => {
    const tool = catalog.get(call.tool)
    const prepared = await tool?.prepare?.(call.input, { client: call.client, session: call.session })
    if (prepared && !prepared.ok) return refuse('invalid_input', prepared.message)
    const input = prepared ? prepared.value : call.input
    if (!tool || !deps.guard) return { ok: true, input }
    const guarded = await deps.guard.decide(call, tool, deps.portOf(system), input)
    return guarded.ok ? { ok: true, input, ...(guarded.flow ? { flow: guarded.flow } : {}) } : guarded
  }

  /**
   * tool.dispatch to the active extension; its answer (or refusal) is the call's outcome. An abort of
   * `signal` (the call left `running`) forgets the request, so a late answer is dropped.
   */
  const dispatch = (call: ToolInvocationContext, system: SystemLookup, signal: AbortSignal) => {
    const sent = deps.portOf(system).request('tool.dispatch', {
      dispatchId: call.invocationId,
      plugin: call.plugin,
      tool: wireName(call),
      input: 'preparedInput' in call ? call.preparedInput : call.input,
      // An approved call runs in the tab the user saw, on the origin it showed, or fails with tab_closed.
      ...(call.tab ? { tabId: call.tab.tabId, ...originOf(call.tab.url) } : {}),
      client: call.client.slice(0, WIRE_NAME_MAX),
      session: call.session.slice(0, WIRE_NAME_MAX),
      // A site's tool runs only while the page still declares what the call was checked with.
      ...(declaredOf(call) !== undefined ? { declared: declaredOf(call) } : {}),
    })
    if (!sent) return Promise.resolve<ToolOutcome>({ ok: false, error: FAILURES.lostDuringCall })
    signal.addEventListener('abort', sent.forget, { once: true })
    return sent.result.then(
      (result): ToolOutcome => {
        const raw = result.output ?? null
        // A site's own tool reads its site; others say where they read (the page's origin), or list the pages they read.
        const site = catalog.get(call.tool)?.site
        const labelled = result.origins ?? (site ? [site.origin] : deps.guard?.labels(call, raw))
        // A client with fixed read origins gets only what it may read (../guard).
        const read = deps.guard?.readable(call, raw, labelled) ?? { output: raw, origins: labelled }
        if ('refused' in read)
          return { ok: false, error: { code: 'flow_blocked', message: read.refused, category: 'permission' } }
        const { output, origins } = read
        // A declared output schema is a promise to the agent: an output that breaks it stops here.
        const checked = catalog.get(call.tool)?.checkOutput?.(output) ?? { ok: true }
        if (checked.ok) return { ok: true, output, ...(origins ? { origins } : {}) }
        return {
          ok: false,
          error: {
            code: 'invalid_output',
            message: `the tool's output does not match its output schema: ${neutralizeText(checked.message, 300)}`,
            category: 'validation',
          },
        }
      },
      (error: unknown): ToolOutcome => ({
        ok: false,
        error: dispatchFailure(error, declaredOf(call) !== undefined),
      }),
    )
  }

  return toolInvocationMachine.provide({
    guards: {
      // The call waits on what the card shows: the declaration it was checked with, which the site changed.
      declarationChanged: ({ context: call }) => {
        const declared = declaredOf(call)
        return declared !== undefined && catalog.get(call.tool)?.site?.hash !== declared
      },
    },
    actors: {
      approval: approvalMachine.provide({
        delays: {
          approvalTimeout: limits.approvalTimeoutMs,
          approvalProgressInterval: limits.approvalProgressIntervalMs,
        },
      }),
      prepareInput: fromPromise<PreparedInput, ToolInvocationInput>(({ input: call, system }) =>
        prepareInput(call, system),
      ),
      dispatch: fromPromise<ToolOutcome, ToolInvocationContext>(({ input: call, system, signal }) =>
        dispatch(call, system, signal),
      ),
      reserveApproval: fromPromise<StepResult, ToolInvocationInput>(({ input: call }) =>
        Promise.resolve(reserveApproval(call)),
      ),
    },
    actions: {
      check: assign({
        verdict: ({ context: call, system }): CheckVerdict => {
          try {
            return check(call, system)
          } catch (error) {
            logger.error('checking a call failed:', error)
            return {
              ok: false,
              error: { code: 'tool_error', message: 'the call could not be validated', category: 'internal' },
            }
          }
        },
      }),
      describeApproval: assign({
        approvalRequest: ({ context: call }): ApprovalRequest => {
          const tool = catalog.get(call.tool)
          const scope = deps.scopes?.describe(call.client)
          return {
            id: call.invocationId,
            plugin: call.plugin,
            tool: call.tool,
            params: call.input,
            expiresAt: Date.now() + limits.approvalTimeoutMs,
            client: call.client.slice(0, WIRE_NAME_MAX),
            ...(call.tab ? { tab: call.tab } : {}),
            // "Always allow" is not offered where it would not set the tool to auto (browser_evaluate).
            // Nor for a workflow: its permission is its file's, set in the side panel or the CLI. On a
            // flow question it allows the flows for this client, never the tool.
            ...(call.flow
              ? { flow: call.flow }
              : tool && (tool.plan || !allowAlwaysPersists(tool.plugin, tool.key))
                ? { allowAlways: false }
                : {}),
            ...(scope ? { scope } : {}),
            ...(tool?.plan
              ? {
                  plan: tool
                    .plan(call.input)
                    .slice(0, 600)
                    .map((l) => l.slice(0, 2000)),
                }
              : {}),
            // What the tool says about itself, for the user deciding; the call's permission is settled already.
            ...(tool && !tool.site
              ? {
                  title: tool.title.slice(0, 200),
                  ...(tool.annotations ? { annotations: tool.annotations } : {}),
                }
              : {}),
            // A site's tool: the hints of the declaration checked (a change withdraws this card).
            ...(tool?.site ? { annotations: siteHints(tool.site.annotations) } : {}),
          }
        },
      }),
      requestApproval: ({ context: call, system }) => {
        if (call.approvalRequest)
          void deps.portOf(system).notify('confirmation.request', call.approvalRequest)
      },
      releaseApproval: ({ context: call }) => {
        approvals.release(call.invocationId)
      },
      // The audit log reports a refusing disk itself: the call still answers with its outcome.
      record: ({ context: call }) => {
        const flowGuard = deps.guard?.finished(call, call.outcome)
        deps.audit.record({
          ...auditEntryOf(call, call.outcome, call.approvalMs, declaredOf(call)),
          ...(flowGuard ? { flowGuard } : {}),
        })
      },
      cancelApproval: ({ context: call, system }, { reason }) =>
        void deps.portOf(system).notify('confirmation.cancel', { id: call.invocationId, reason }),
      // "Allow always" never turns JavaScript evaluation to auto: the call runs once, nothing is saved.
      approvedOnce: ({ context: call }) => deps.guard?.answered(call, 'allow_once'),
      persistAlways: ({ context: call }) => {
        // A flow question's "always" allows the flows for this client; the tool's permission stays.
        if (call.flow) return deps.guard?.answered(call, 'allow_always')
        const tool = catalog.get(call.tool)
        if (!tool || tool.plan || !allowAlwaysPersists(tool.plugin, tool.key)) return
        const declared = declaredOf(call)
        void deps
          .updateConfig((config) =>
            // A site's own tool: auto for the declaration the user approved (the one the call was checked
            // with), never what the site declares by the time of the click.
            tool.site && declared !== undefined
              ? {
                  ...config,
                  sites: withSiteToolPermission(config.sites, tool.plugin, tool.key, 'auto', declared),
                }
              : {
                  ...config,
                  permissions: withToolPermission(
                    config.permissions,
                    tool.plugin,
                    tool.key,
                    'auto',
                    tool.pluginBuild,
                  ),
                },
          )
          .then(
            () => deps.onConfigChanged(),
            (error: unknown) =>
              logger.error(`could not save "always allow" for ${tool.plugin} ${tool.key}:`, error),
          )
      },
      announceStart: ({ context: call, system }) =>
        void deps.portOf(system).notify('tool.invocationStart', {
          dispatchId: call.invocationId,
          plugin: call.plugin,
          tool: wireName(call),
        }),
      // The end leaves with the next frame (or within a few ms): the answer does not wait for it.
      announceEnd: ({ context: call, system }) =>
        void deps.portOf(system).notify(
          'tool.invocationEnd',
          {
            dispatchId: call.invocationId,
            plugin: call.plugin,
            tool: wireName(call),
            success: call.outcome?.ok === true,
            durationMs: Math.max(0, Date.now() - call.startedAt - (call.approvalMs ?? 0)),
          },
          { soon: true },
        ),
    },
    delays: { callTimeout: limits.toolTimeoutMs, maxDuration: limits.toolMaxDurationMs },
  })
}

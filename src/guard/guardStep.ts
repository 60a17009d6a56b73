/**
 * The data-flow guard as a step of the call path (DESIGN.md section 5a), keyed by client:
 * - `screen`, inside a call's synchronous check: does the call carry data somewhere (its tool's
 *   sink), and did its client read any of its arguments' values before? Only then does it need
 *   `decide`, so a call with nothing to guard costs one match over its arguments.
 * - `decide`, before dispatch: the origins the call would write to (a URL argument's, the tab's, as
 *   the extension names and pins it, a site's own), the flows that cross origins, and what the
 *   setting says: `block` refuses, naming both ends; `ask` puts a flow question to the user (the
 *   call's approval, with what would flow, masked); flows the user allowed always pass.
 * - `labels`, as a result arrives: the origins it was read from, when the extension did not name them
 *   (a tool that runs in no tab labels its result by the pages it lists).
 * - `readable`, as a result arrives: a client with fixed read origins reads no other (a list of pages
 *   keeps the items it may read).
 * - `finished`, when the call ends: its audit entry gets the guard's record (origins, kinds, decision;
 *   never a value), and its result is held for `handedOut`.
 * - `handedOut`, once the call runner shaped the result: what the client was handed (not what the
 *   size cap refused) labels what it now holds.
 */
import type { ToolInvocationInput, ToolOutcome } from '../../machines/toolInvocationMachine'
import type { CatalogTool } from '../catalog/toolCatalog'
import type { FlowGuardConfig, FlowGuardMode } from '../config/schema'
import { BROWSER_PLUGIN, type ApprovalFlow, type Decision } from '../protocol'
import type { ResolvedStep } from '../protocol/workflow'
import { browserToolListsPages, browserToolSink, type ToolSink } from '../tools'
import type { ExtensionPort } from '../ws/extensionSockets'
import { flowsInto, stringsOf, type Flow, type FlowGuard, type FlowMatch } from './flowGuard'
import { listedItems, listedOrigins, originOf, readableItems } from './listedPages'

/** What the audit entry of a guarded call says (never a value). */
export interface FlowGuardRecord {
  sources: string[]
  sinks: string[]
  kinds: string[]
  decision:
    | 'same_origin'
    | 'allowed_before'
    | 'blocked'
    | 'allowed_once'
    | 'allowed_always'
    | 'denied'
    | 'unanswered'
    | 'outside_client_origins'
}

export type GuardVerdict =
  | { ok: true; flow?: ApprovalFlow }
  | { ok: false; error: { code: 'flow_blocked'; message: string; category: 'permission' } }

/** A client's fixed origins (`bridge client add --reads --writes`); absent: any. */
export interface ClientOrigins {
  reads?: readonly string[]
  writes?: readonly string[]
}

export interface GuardStepDeps {
  guard: FlowGuard
  settings(): FlowGuardConfig | undefined
  /** Saves "always allow" (config.json `flowGuard.allowed`). */
  saveSettings(mutate: (current: FlowGuardConfig) => FlowGuardConfig): Promise<void>
  originsOf(client: string): ClientOrigins | undefined
}

/** The sink's name when the extension cannot tell which page a call would act on. */
export const UNKNOWN_SINK = 'an unknown page'
const MAX_FLOWS_SHOWN = 16
/** A result not handed out within this time never will be (its call's answer went nowhere). */
const HELD_MS = 60_000
const URL_IN_TEXT = /\bhttps?:\/\/[^\s'"`<>()\\]+/gi

export const pairOf = (from: string, to: string): string => `${from} -> ${to}`

/**
 * Where a tool's arguments go: a site's own tool to its site, a plugin's into its page, a workflow's
 * into the pages its steps act on (step by step), a built-in as it declares.
 */
function sinkOf(tool: CatalogTool): ToolSink | { site: string } | { workflow: true } | undefined {
  if (tool.site) return { site: tool.site.origin }
  if (tool.plugin !== BROWSER_PLUGIN) return { page: true }
  if (tool.plan) return { workflow: true }
  return browserToolSink(tool.fullName)
}

/** Steps that carry data into the page they act on (a click, a scroll or a wait carries none). */
const DATA_STEPS = new Set(['navigate', 'switchTab', 'type', 'select', 'press', 'upload', 'dialog', 'tool'])

/** Whether a workflow's first data-carrying step writes to the page the run starts on (no navigation before it). */
function writesBeforeNavigating(plan: unknown): boolean {
  const steps = (plan as { steps?: unknown } | null)?.steps
  if (!Array.isArray(steps)) return false
  for (const step of steps as ResolvedStep[]) {
    if (step.action === 'navigate' || step.action === 'switchTab') return false
    if (DATA_STEPS.has(step.action)) return true
  }
  return false
}

/**
 * A replayed workflow's steps, each with the origin it writes to: a navigation's URL, else the page
 * the run is on by then (after a step's post-condition URL); before any, `start`, the page the run
 * starts on. Only the values a step carries are matched, each step on its own.
 */
function workflowTargets(plan: unknown, start: string): Array<{ sink: string; values: unknown }> {
  const steps = (plan as { steps?: unknown } | null)?.steps
  if (!Array.isArray(steps)) return []
  const targets: Array<{ sink: string; values: unknown }> = []
  let page = start
  for (const raw of steps as ResolvedStep[]) {
    if ((raw.action === 'navigate' || raw.action === 'switchTab') && raw.url)
      page = originOf(raw.url) ?? UNKNOWN_SINK
    if (DATA_STEPS.has(raw.action))
      targets.push({ sink: page, values: [raw.url, raw.text, raw.values, raw.paths, raw.input] })
    const after = raw.post?.url !== undefined ? originOf(raw.post.url) : undefined
    if (after) page = after
  }
  return targets
}

const listsPages = (call: ToolInvocationInput): boolean =>
  call.plugin === BROWSER_PLUGIN && browserToolListsPages(call.tool)

const describeKinds = (flows: readonly { kind: string }[]): string =>
  [
    ...new Set(
      flows.map((f) =>
        f.kind === 'email' ? 'an e-mail address' : f.kind === 'text' ? 'text' : `a ${f.kind}`,
      ),
    ),
  ].join(', ')

export function createGuardStep(deps: GuardStepDeps) {
  /** Per call, between its steps: what matched, where it goes, what was decided. */
  const calls = new Map<string, { matches: FlowMatch[]; flows?: Flow[]; record?: FlowGuardRecord }>()
  /** Results of calls that ended, until the call runner hands them out (or refuses them). */
  const held = new Map<
    string,
    { client: string; origins: readonly string[]; output: unknown; listed: boolean; at: number }
  >()

  const modeOf = (client: string): FlowGuardMode => {
    const settings = deps.settings()
    return settings?.clients?.[client] ?? settings?.mode ?? 'ask'
  }
  const allowedBefore = (client: string, flow: Flow): boolean =>
    deps.settings()?.allowed?.[client]?.includes(pairOf(flow.source, flow.sink)) === true

  /** The origin of the tab a call would act on, as the extension names it (and pins it for the call). */
  async function tabOrigin(
    call: ToolInvocationInput,
    port: ExtensionPort,
    plugin: string,
    tool: string,
    input: unknown,
  ): Promise<string> {
    const asked = port.request('tool.sinkOrigin', {
      dispatchId: call.invocationId,
      plugin,
      tool,
      input,
      client: call.client.slice(0, 64),
      session: call.session.slice(0, 64),
    })
    const answer = await asked?.result.catch(() => undefined)
    return answer?.origin ?? UNKNOWN_SINK
  }

  /**
   * The origin of the tab a workflow run starts in (the one its plan names, or the active one), as the
   * extension names it (and pins it for the call); a closed or unknown tab is an unknown page.
   */
  async function startOrigin(call: ToolInvocationInput, port: ExtensionPort, tabId: number | undefined) {
    const asked = port.request('tab.origin', {
      dispatchId: call.invocationId,
      ...(tabId !== undefined ? { tabId } : {}),
    })
    const answer = await asked?.result.catch(() => undefined)
    return answer?.origin ?? UNKNOWN_SINK
  }

  /** The origins the call would write to; the tab's is asked of the extension, which pins it for the call. */
  async function sinkOrigins(
    call: ToolInvocationInput,
    tool: CatalogTool,
    port: ExtensionPort,
  ): Promise<string[]> {
    const sink = sinkOf(tool)
    if (!sink || 'workflow' in sink) return []
    if ('site' in sink) return [sink.site]
    const origins = new Set<string>()
    const input = (call.input ?? {}) as Record<string, unknown>
    const url = sink.url !== undefined ? input[sink.url] : undefined
    if (typeof url === 'string') origins.add(originOf(url) ?? UNKNOWN_SINK)
    else if (sink.page) {
      origins.add(await tabOrigin(call, port, call.plugin, tool.key, call.input))
    }
    if (sink.scriptUrls)
      for (const text of stringsOf(call.input, 1024 * 1024))
        for (const found of text.matchAll(URL_IN_TEXT)) origins.add(originOf(found[0]) ?? UNKNOWN_SINK)
    return [...origins]
  }

  const refuse = (message: string): GuardVerdict => ({
    ok: false,
    error: { code: 'flow_blocked', message, category: 'permission' },
  })

  return {
    /** Synchronous, in the call's check: whether the call needs `decide` before it runs. */
    screen(call: ToolInvocationInput, tool: CatalogTool): boolean {
      if (!sinkOf(tool)) return false
      const fixed = deps.originsOf(call.client)?.writes
      if (modeOf(call.client) === 'off' && !fixed) return false
      const matches = modeOf(call.client) === 'off' ? [] : deps.guard.matchSink(call.client, call.input)
      if (!matches.length && !fixed) return false
      calls.set(call.invocationId, { matches })
      return true
    },

    /**
     * Before dispatch: where the call writes, and whether what it carries may go there. `prepared` is
     * the input as the tool's daemon-side step made it (a workflow's plan, its values filled in).
     */
    async decide(
      call: ToolInvocationInput,
      tool: CatalogTool,
      port: ExtensionPort,
      prepared: unknown = call.input,
    ): Promise<GuardVerdict> {
      const state = calls.get(call.invocationId)
      if (!state) return { ok: true }
      let sinks: string[]
      let crossing: Flow[]
      if (tool.plan) {
        // A workflow: each step's values against the page that step writes to; a step before any
        // navigation writes to the tab the run starts in (the one its plan names, or the active one).
        const tabId = (prepared as { tabId?: unknown } | null)?.tabId
        const start = writesBeforeNavigating(prepared)
          ? await startOrigin(call, port, typeof tabId === 'number' ? tabId : undefined)
          : UNKNOWN_SINK
        const steps = workflowTargets(prepared, start).map((step) => ({
          sink: step.sink,
          matches: deps.guard.matchSink(call.client, step.values),
        }))
        sinks = [...new Set(steps.map((step) => step.sink))]
        state.matches = steps.flatMap((step) => step.matches)
        crossing = steps.flatMap((step) => flowsInto(step.matches, [step.sink]))
      } else {
        sinks = await sinkOrigins(call, tool, port)
        crossing = flowsInto(state.matches, sinks)
      }
      const sources = [...new Set(state.matches.map((m) => m.source))]
      const kinds = [...new Set(state.matches.map((m) => m.kind))]
      const writes = deps.originsOf(call.client)?.writes
      const outside = writes ? sinks.filter((o) => !writes.includes(o)) : []
      if (outside.length) {
        state.record = { sources, sinks, kinds, decision: 'outside_client_origins' }
        return refuse(
          `the client ${call.client.slice(0, 64)} may write only to ${writes!.join(', ')}; this call would write to ${outside.join(', ')}. Nothing ran.`,
        )
      }
      const flows = crossing.filter((flow) => !allowedBefore(call.client, flow))
      if (!flows.length) {
        if (state.matches.length)
          state.record = {
            sources,
            sinks,
            kinds,
            decision: crossing.length ? 'allowed_before' : 'same_origin',
          }
        return { ok: true }
      }
      state.flows = flows
      const ends = [...new Set(flows.map((f) => `${f.source} to ${f.sink}`))].join('; ')
      const record = (decision: FlowGuardRecord['decision']): FlowGuardRecord => ({
        sources: [...new Set(flows.map((f) => f.source))],
        sinks: [...new Set(flows.map((f) => f.sink))],
        kinds: [...new Set(flows.map((f) => f.kind))],
        decision,
      })
      if (modeOf(call.client) === 'block') {
        state.record = record('blocked')
        return refuse(
          `the data-flow guard stopped this call: its arguments carry ${describeKinds(flows)} that this client read on another site (${ends}). ` +
            'Nothing ran. The user can allow such flows (bridge config set flow-guard ask) or send only what they gave you.',
        )
      }
      state.record = record('unanswered')
      return {
        ok: true,
        flow: {
          flows: flows.slice(0, MAX_FLOWS_SHOWN).map((f) => ({
            from: f.source.slice(0, 2100),
            to: f.sink.slice(0, 2100),
            kind: f.kind,
            masked: f.masked.slice(0, 300),
          })),
        },
      }
    },

    /**
     * The call runner shaped the call's result for the client: what it was handed is remembered for it
     * (fingerprinted off the answer's path, ./flowGuard.ts), as far as it was handed out: nothing of a
     * result the size cap refused, no more than the text a cut one kept.
     */
    handedOut(id: string, result: HandedResult): void {
      const source = held.get(id)
      held.delete(id)
      if (!source || result.isError) return
      // A list of pages: each item under its own origin, so an item sent back where it came from is no flow.
      if (source.listed)
        for (const { origin, item } of listedItems(source.output))
          deps.guard.recordSource(source.client, [origin], item)
      else deps.guard.recordSource(source.client, source.origins, source.output, handedChars(result))
    },

    /** The user's answer to the call's flow question; "always" allows these flows for this client from now on. */
    answered(call: ToolInvocationInput, decision: Decision): void {
      const state = calls.get(call.invocationId)
      if (!state?.flows || !state.record) return
      state.record.decision =
        decision === 'allow_always' ? 'allowed_always' : decision === 'allow_once' ? 'allowed_once' : 'denied'
      if (decision !== 'allow_always') return
      const pairs = [...new Set(state.flows.map((f) => pairOf(f.source, f.sink)))]
      void deps.saveSettings((settings) => {
        const had = settings.allowed?.[call.client] ?? []
        return {
          ...settings,
          allowed: { ...settings.allowed, [call.client]: [...had, ...pairs.filter((p) => !had.includes(p))] },
        }
      })
    },

    /**
     * What of a result this client may read: all of it, or, for a client with fixed read origins, a
     * list of pages without the items of other origins; a result read from another origin is withheld.
     */
    readable(
      call: ToolInvocationInput,
      output: unknown,
      origins: string[] | undefined,
    ): { output: unknown; origins?: string[] } | { refused: string } {
      const reads = deps.originsOf(call.client)?.reads
      const whole = origins ? { output, origins } : { output }
      if (!reads || !origins || origins.every((o) => reads.includes(o))) return whole
      const kept = listsPages(call) ? readableItems(output, reads) : undefined
      if (kept !== undefined) {
        const left = listedOrigins(kept)
        return left ? { output: kept, origins: left } : { output: kept }
      }
      const outside = origins.filter((o) => !reads.includes(o))
      return {
        refused: `the client ${call.client.slice(0, 64)} may read only ${reads.join(', ')}; this result came from ${outside.join(', ')} and is withheld`,
      }
    },

    /** The origins a built-in tool that runs in no tab read its result from: the pages it lists. */
    labels(call: ToolInvocationInput, output: unknown): string[] | undefined {
      return listsPages(call) ? listedOrigins(output) : undefined
    },

    /**
     * The call ended: its result is held until the client is handed it (`handedOut`); its audit record,
     * if the guard had a say.
     */
    finished(call: ToolInvocationInput, outcome: ToolOutcome | undefined): FlowGuardRecord | undefined {
      const state = calls.get(call.invocationId)
      calls.delete(call.invocationId)
      const now = Date.now()
      for (const [id, result] of held) if (now - result.at > HELD_MS) held.delete(id)
      if (outcome?.ok && outcome.origins?.length && modeOf(call.client) !== 'off')
        held.set(call.invocationId, {
          client: call.client,
          origins: outcome.origins,
          output: outcome.output,
          listed: listsPages(call),
          at: now,
        })
      const record = state?.record
      if (
        record?.decision === 'unanswered' &&
        outcome &&
        !outcome.ok &&
        outcome.error.code === 'approval_denied'
      )
        record.decision = 'denied'
      return record
    },
  }
}

export type GuardStep = ReturnType<typeof createGuardStep>

/** Of an MCP result, what says how much of a call's output the client got. */
export interface HandedResult {
  isError?: boolean
  content?: ReadonlyArray<{ type: string; text?: string }>
  structuredContent?: unknown
}

/** A result's characters of text as handed out; Infinity for a structured result (handed whole). */
function handedChars(result: HandedResult): number {
  if (result.structuredContent !== undefined) return Infinity
  let chars = 0
  for (const block of result.content ?? []) if (block.type === 'text') chars += block.text?.length ?? 0
  return chars
}

/**
 * Workflows in the daemon: the saved files as `workflow_<name>` tools for the catalog, and the one
 * hook on the call path (`afterCall`, called with every call's outcome) that records what an agent
 * does between browser_recording_start and browser_recording_stop, and that keeps a replay's
 * healed locators and audits its steps.
 */
import { randomUUID } from 'node:crypto'
import type { AuditEntry } from '../audit'
import type { CallerOf, CatalogWorkflowTool } from '../catalog/toolCatalog'
import type { ToolOutcome } from '../../machines/toolInvocationMachine'
import { BROWSER_PLUGIN } from '../protocol/constants'
import {
  isWorkflowToolName,
  workflowOfToolName,
  workflowToolName,
  type CapturedCall,
  type ResolvedStep,
  type WorkflowRunInput,
  type WorkflowRunOutput,
} from '../protocol/workflow'
import { log } from '../log'
import type { BrowserToolContext } from '../tools/define'
import { readPaths } from '../tools/common'
import { WORKFLOW_FORMAT_VERSION, type Workflow } from './format'
import {
  inputSchemaOf,
  planInWords,
  resolvePlan,
  stepInWords,
  toolDescriptionOf,
  type Resolved,
} from './plan'
import { buildSteps, type SeenCall } from './steps'
import { createWorkflowStore, type WorkflowStore } from './store'

const logger = log.withTag('workflows')

/** Tools whose results hold secrets an agent may type back: their string values become secret variables. */
const SECRET_SOURCES = new Set(['browser_get_cookies', 'browser_local_storage_get'])
const MAX_CALLS = 500
/** A run the extension never answered is forgotten after this long (its tool steps refused). */
const RUN_TTL_MS = 60 * 60_000
/** A run's result: ok, how many steps ran, which healed, where it stopped (open: see afterRun). */
const RUN_OUTPUT_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }

export interface FinishedCall {
  id: string
  name: string
  plugin: string
  input: unknown
  client: string
  outcome: ToolOutcome
}

export interface DaemonWorkflows {
  store: WorkflowStore
  /** The catalog's source: a new array whenever a file changed. */
  tools(): readonly CatalogWorkflowTool[]
  /** Reads the folder again (after `bridge workflow ...` changed it, or /reload). */
  reread(): void
  /** The call path's hook: sees every finished call; may give the agent a different result. */
  afterCall(call: FinishedCall): ToolOutcome
  /** `workflow.toolStep`: a running workflow's tool step, called as the run's client. */
  toolStep(params: { run: string; step: number }): Promise<ToolStepAnswer>
}

export interface ToolStepAnswer {
  ok: boolean
  output?: unknown
  error?: { code: string; message: string }
}

/** A call the daemon makes for a run, through the path every call takes (src/calls/toolCalls.ts). */
export type StepCall = (call: {
  name: string
  input: unknown
  client: string
  session: string
}) => Promise<ToolOutcome>

/** A run between its plan and its result: what its tool steps may call, and as whom. */
interface Run {
  caller: CallerOf
  steps: readonly ResolvedStep[]
  started: number
}

interface Recording {
  name: string
  description: string
  calls: SeenCall[]
  secretsRead: Set<string>
}

export interface DaemonWorkflowsDeps {
  configDir: string
  audit: { record(entry: AuditEntry): void }
  /** The tool list changed: tell agents and the extension. */
  onChanged(): void
  /** Reads an upload step's paths from the folders the user allowed, as browser_upload_file does. */
  uploads: BrowserToolContext
  /** Makes a tool step's call (set once the call path exists). */
  callTool: StepCall
}

const textOf = (output: unknown): string => (typeof output === 'string' ? output : '')

/** Every string in a value (a cookie list, a storage read). */
function stringsIn(value: unknown, out: Set<string>): void {
  if (typeof value === 'string') {
    if (value.length >= 4) out.add(value)
  } else if (Array.isArray(value)) value.forEach((v) => stringsIn(v, out))
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => stringsIn(v, out))
}

export function createDaemonWorkflows(deps: DaemonWorkflowsDeps): DaemonWorkflows {
  const store = createWorkflowStore(deps.configDir)
  let current: readonly CatalogWorkflowTool[] = []
  const recordings = new Map<string, Recording>()
  const runs = new Map<string, Run>()

  /** Upload steps get their files read now, from the allowed folders, as an agent's upload would. */
  const withFiles = async (
    plan: WorkflowRunInput,
  ): Promise<{ ok: true } | { ok: false; message: string }> => {
    for (const step of plan.steps) {
      if (step.action !== 'upload') continue
      const read = await readPaths({ paths: step.paths ?? [] }, deps.uploads)
      if (!read.ok) return { ok: false, message: `step ${step.index} (upload): ${read.message}; nothing ran` }
      step.files = (read.value as { files?: ResolvedStep['files'] }).files ?? []
      delete step.paths
    }
    return { ok: true }
  }

  /** Keeps the plan of a run that has tool steps, under a new id the plan carries. */
  const started = (plan: WorkflowRunInput, caller: CallerOf | undefined): Resolved => {
    const now = Date.now()
    for (const [id, run] of runs) if (now - run.started > RUN_TTL_MS) runs.delete(id)
    if (!plan.steps.some((step) => step.action === 'tool')) return { ok: true, value: plan }
    if (!caller) return { ok: false, message: 'a workflow with tool steps runs only as a known client' }
    const run = randomUUID()
    runs.set(run, { caller, steps: plan.steps, started: now })
    return { ok: true, value: { ...plan, run } }
  }

  const toolOf = (workflow: Workflow): CatalogWorkflowTool => ({
    fullName: workflowToolName(workflow.name),
    key: workflow.name,
    title: `Workflow: ${workflow.name}`,
    description: toolDescriptionOf(workflow),
    inputSchema: inputSchemaOf(workflow),
    outputSchema: RUN_OUTPUT_SCHEMA,
    permission: workflow.permission,
    prepare: async (input, caller) => {
      // Read again at run time: the file may have healed since the list was built.
      const fresh = store.read(workflow.name)
      const now = fresh?.ok ? fresh.workflow : workflow
      const plan = resolvePlan(now, (input ?? {}) as Record<string, unknown>)
      if (!plan.ok) return plan
      const files = await withFiles(plan.value)
      return files.ok ? started(plan.value, caller) : files
    },
    plan: (input) => planInWords(workflow, (input ?? {}) as Record<string, unknown>),
  })

  const reread = () => {
    current = store.list().flatMap((loaded) => {
      if (loaded.ok) return [toolOf(loaded.workflow)]
      logger.warn(`workflow ${loaded.name} is not listed: ${loaded.message}`)
      return []
    })
  }
  reread()

  const save = (workflow: Workflow) => {
    store.write(workflow)
    reread()
    deps.onChanged()
  }

  const finishRecording = (client: string, recording: Recording, output: unknown): ToolOutcome => {
    recordings.delete(client)
    const captured = (output as { steps?: (CapturedCall & { dispatchId: string })[] } | null)?.steps ?? []
    const signals = new Map(captured.map(({ dispatchId, ...call }) => [dispatchId, call] as const))
    const built = buildSteps(recording.calls, signals, recording.secretsRead)
    const now = new Date().toISOString()
    const previous = store.read(recording.name)
    const workflow: Workflow = {
      version: WORKFLOW_FORMAT_VERSION,
      name: recording.name,
      description: recording.description,
      // A new recording is off again, even over one that was on: its steps are new.
      permission: 'off',
      recordedBy: 'agent',
      createdAt: previous?.ok ? previous.workflow.createdAt : now,
      updatedAt: now,
      variables: built.variables,
      steps: built.steps,
      history: [],
    }
    try {
      save(workflow)
    } catch (error) {
      return {
        ok: false,
        error: {
          code: 'tool_error',
          message: `the workflow could not be saved: ${(error as Error).message}`,
        },
      }
    }
    return {
      ok: true,
      output: {
        recording: workflow.name,
        saved: workflow.name,
        file: `${store.dir}/${workflow.name}.json`,
        permission: 'off',
        steps: workflow.steps.map((s, i) => `${i + 1}. ${stepInWords(s)}`),
        variables: workflow.variables.map((v) => (v.secret ? `${v.name} (secret, not stored)` : v.name)),
        ...(built.skipped.length ? { notRecorded: built.skipped } : {}),
        next: `the user turns it on (side panel, or \`bridge workflow set ${workflow.name} ask\`); then it is the tool ${workflowToolName(workflow.name)}`,
      },
    }
  }

  /**
   * A recording one side lost while it ran: nothing is saved (a workflow missing the steps before the
   * restart would replay something else than what was shown), and the agent is told so.
   */
  const lostRecording = (output: unknown, why: string): ToolOutcome => {
    const name = (output as { recording?: unknown } | null)?.recording
    const named = typeof name === 'string' ? `the recording ${name}` : 'the recording'
    return {
      ok: false,
      error: {
        code: 'tool_error',
        message: `${named} was lost: ${why} while it ran, and nothing was saved. Start it again with browser_recording_start and redo the steps.`,
      },
    }
  }

  const afterRun = (call: FinishedCall): ToolOutcome => {
    if (!call.outcome.ok) return call.outcome
    const name = workflowOfToolName(call.name) ?? call.name
    const run = call.outcome.output as WorkflowRunOutput
    if (run.run !== undefined) runs.delete(run.run)
    for (const step of run.steps ?? [])
      deps.audit.record({
        timestamp: new Date().toISOString(),
        tool: call.name,
        plugin: BROWSER_PLUGIN,
        client: call.client.slice(0, 256),
        success: step.ok,
        durationMs: Math.max(0, Math.round(step.durationMs)),
        step: step.index,
        ...(step.error
          ? { error: { code: step.error.code, message: step.error.message.slice(0, 500) } }
          : {}),
      })
    const healed = (run.steps ?? []).filter((s) => s.healed)
    if (healed.length) {
      const loaded = store.read(name)
      if (loaded?.ok) {
        const workflow = structuredClone(loaded.workflow)
        const at = new Date().toISOString()
        for (const step of healed) {
          const saved = workflow.steps[step.index - 1]
          if (!saved || !step.healed) continue
          workflow.history.push({
            at,
            step: step.index,
            change: 'healed',
            note: `the ${step.healed.from} signal missed; found by ${step.healed.by}`,
            ...(saved.target ? { old: saved.target } : {}),
          })
          saved.target = step.healed.target
        }
        workflow.history = workflow.history.slice(-1000)
        workflow.updatedAt = at
        try {
          save(workflow)
        } catch (error) {
          logger.error(`could not save the healed workflow ${name}:`, error)
        }
      }
    }
    // Only what the agent does not know already: the tool it called names the workflow, its
    // description the number of steps (all ran when ok; a stop names its step), and the tab is the
    // one it ran in unless the extension says otherwise (src/protocol/workflow.ts, `tabId`).
    const output = {
      ok: run.ok,
      ...(healed.length
        ? { healed: healed.map((s) => ({ step: s.index, by: s.healed!.by, saved: true })) }
        : {}),
      ...(run.read?.length ? { read: run.read } : {}),
      ...(run.stopped ? { stopped: run.stopped } : {}),
      ...(run.tabId !== undefined ? { tabId: run.tabId } : {}),
    }
    // The origins the run's pages were on stay the result's labels (its reads are page content).
    return { ...call.outcome, output }
  }

  const toolStep = async ({
    run: id,
    step: index,
  }: {
    run: string
    step: number
  }): Promise<ToolStepAnswer> => {
    const run = runs.get(id)
    const step = run?.steps.find((s) => s.index === index)
    if (!run || step?.action !== 'tool' || !step.tool)
      return {
        ok: false,
        error: { code: 'invalid_input', message: 'no running workflow has that tool step' },
      }
    // The tool and its input are the plan's, never the extension's: the call is what was approved.
    const outcome = await deps.callTool({
      name: step.tool,
      input: step.input ?? {},
      client: run.caller.client,
      session: run.caller.session,
    })
    return outcome.ok
      ? { ok: true, output: outcome.output }
      : { ok: false, error: { code: outcome.error.code, message: outcome.error.message } }
  }

  return {
    store,
    toolStep,
    tools: () => current,
    reread: () => {
      reread()
    },
    afterCall(call) {
      if (isWorkflowToolName(call.name) && call.plugin === BROWSER_PLUGIN) return afterRun(call)
      const { outcome, client } = call
      if (call.name === 'browser_recording_start') {
        const input = (call.input ?? {}) as { name?: string; description?: string }
        if (outcome.ok && input.name)
          recordings.set(client, {
            name: input.name,
            description: input.description ?? '',
            calls: [],
            secretsRead: new Set(),
          })
        return outcome
      }
      const recording = recordings.get(client)
      if (call.name === 'browser_recording_stop') {
        if (recording && outcome.ok) return finishRecording(client, recording, outcome.output)
        // The extension kept a recording the daemon no longer has: the daemon restarted while it ran.
        if (!recording && outcome.ok) return lostRecording(outcome.output, 'the bridge daemon restarted')
        // The daemon's recording with none in the extension (its refusal: "no recording is running"):
        // the extension was reloaded meanwhile, and the targets of the steps so far are gone.
        if (
          recording &&
          !outcome.ok &&
          outcome.error.code === 'tool_error' &&
          outcome.error.category === 'validation'
        ) {
          recordings.delete(client)
          return lostRecording({ recording: recording.name }, 'the browser extension restarted')
        }
        return outcome
      }
      if (!recording) return outcome
      if (!outcome.ok) return outcome
      if (SECRET_SOURCES.has(call.name)) stringsIn(outcome.output, recording.secretsRead)
      if (recording.calls.length < MAX_CALLS)
        recording.calls.push({
          id: call.id,
          tool: call.name,
          plugin: call.plugin,
          input: (call.input ?? {}) as Record<string, unknown>,
          text: textOf(outcome.output),
        })
      return outcome
    },
  }
}

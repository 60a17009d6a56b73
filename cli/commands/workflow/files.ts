/**
 * `bridge workflow list|show|rm|rename|set`: the files in `<config dir>/workflows/`, read and written
 * with the module the daemon uses (src/workflows/store.ts); a running daemon is then asked to re-read
 * them, so agents' tool lists follow at once. Text a page gave (names, headings) is neutralized.
 */
import { neutralizeText } from '../../../src/protocol/untrustedText'
import { workflowToolName } from '../../../src/protocol/toolNames'
import { readFileSync } from 'node:fs'
import { fromRecorder, toPlaywright, toRecorder } from '../../../src/workflows/exchange'
import { stepInWords } from '../../../src/workflows/plan'
import { createWorkflowStore, type WorkflowStore } from '../../../src/workflows/store'
import { fail, say, warn } from '../../shared/output'
import { configContext, rereadByDaemon, runningDaemon, type ConfigContext } from '../config/context'

export interface WorkflowFlags {
  port?: unknown
  json?: boolean
}

const PERMISSIONS: readonly string[] = ['off', 'ask', 'auto']

function storeOf(flags: WorkflowFlags): { store: WorkflowStore; context: ConfigContext } {
  const context = configContext(flags)
  return { store: createWorkflowStore(context.paths.dir), context }
}

const clean = (text: string, max = 300) => neutralizeText(text, max)

export function listWorkflows(flags: WorkflowFlags): void {
  const { store } = storeOf(flags)
  const loaded = store.list()
  if (flags.json) {
    say(
      JSON.stringify(
        loaded.map((l) =>
          l.ok
            ? {
                name: l.workflow.name,
                tool: workflowToolName(l.workflow.name),
                permission: l.workflow.permission,
                description: l.workflow.description,
                steps: l.workflow.steps.length,
                variables: l.workflow.variables.map((v) => ({ name: v.name, secret: v.secret })),
              }
            : { name: l.name, broken: l.message },
        ),
        null,
        2,
      ),
    )
    return
  }
  if (!loaded.length) return say(`no workflows in ${store.dir}`)
  for (const l of loaded)
    if (l.ok)
      say(
        `${l.workflow.name}  ${l.workflow.permission}  ${l.workflow.steps.length} steps  ${l.workflow.variables.map((v) => (v.secret ? `${v.name} (secret)` : v.name)).join(', ') || 'no variables'}`,
      )
    else say(`${l.name}  broken: ${clean(l.message)}`)
}

export function showWorkflow(name: string, flags: WorkflowFlags): void {
  const { store } = storeOf(flags)
  const loaded = store.read(name)
  if (!loaded) return fail(`there is no workflow named ${name}; see \`bridge workflow list\``)
  if (!loaded.ok) return fail(`the workflow ${name} cannot be read: ${loaded.message}`)
  const w = loaded.workflow
  if (flags.json) return say(JSON.stringify(w, null, 2))
  say(`${w.name}  (tool ${workflowToolName(w.name)}, ${w.permission}, recorded by ${w.recordedBy})`)
  if (w.description) say(clean(w.description, 1000))
  say('Steps:')
  w.steps.forEach((step, i) => say(`  ${i + 1}. ${clean(stepInWords(step), 500)}`))
  say('Variables:')
  for (const v of w.variables)
    say(
      `  ${v.name}${v.secret ? '  secret (no stored value: give it to every run)' : `  default ${clean(JSON.stringify(v.default ?? ''), 200)}`}`,
    )
  if (w.history.length)
    say(`History: ${w.history.length} change(s), the last: ${clean(w.history.at(-1)!.note)}`)
}

async function changed(context: ConfigContext): Promise<void> {
  await rereadByDaemon(context, await runningDaemon(context))
}

export async function removeWorkflow(name: string, flags: WorkflowFlags): Promise<void> {
  const { store, context } = storeOf(flags)
  if (!store.remove(name)) return fail(`there is no workflow named ${name}`)
  say(`removed the workflow ${name}`)
  await changed(context)
}

export async function renameWorkflow(from: string, to: string, flags: WorkflowFlags): Promise<void> {
  const { store, context } = storeOf(flags)
  store.rename(from, to)
  say(`renamed ${from} to ${to} (tool ${workflowToolName(to)})`)
  await changed(context)
}

export async function setWorkflow(name: string, permission: string, flags: WorkflowFlags): Promise<void> {
  if (!PERMISSIONS.includes(permission))
    return fail(`the permission must be off, ask or auto, not "${clean(permission, 20)}"`)
  const { store, context } = storeOf(flags)
  const loaded = store.read(name)
  if (!loaded) return fail(`there is no workflow named ${name}`)
  if (!loaded.ok) return fail(`the workflow ${name} cannot be read: ${loaded.message}`)
  store.write({
    ...loaded.workflow,
    permission: permission as 'off' | 'ask' | 'auto',
    updatedAt: new Date().toISOString(),
  })
  say(
    `workflow ${name}: ${permission}${permission === 'off' ? '' : ` (agents see the tool ${workflowToolName(name)})`}`,
  )
  await changed(context)
}

export interface ExportFlags extends WorkflowFlags {
  format?: string
  var?: string | string[]
}

/** Prints the workflow in another tool's format on standard output; warnings go to standard error. */
export function exportWorkflow(name: string, flags: ExportFlags): void {
  const { store } = storeOf(flags)
  const loaded = store.read(name)
  if (!loaded) return fail(`there is no workflow named ${name}`)
  if (!loaded.ok) return fail(`the workflow ${name} cannot be read: ${loaded.message}`)
  const given: Record<string, string> = {}
  for (const pair of (flags.var === undefined ? [] : [flags.var].flat()).map(String)) {
    const at = pair.indexOf('=')
    if (at <= 0) return fail('--var takes key=value')
    given[pair.slice(0, at)] = pair.slice(at + 1)
  }
  const format = flags.format ?? 'recorder'
  if (format !== 'recorder' && format !== 'playwright')
    return fail(`--format is recorder or playwright, not "${clean(format, 20)}"`)
  const out = format === 'recorder' ? toRecorder(loaded.workflow, given) : toPlaywright(loaded.workflow)
  for (const warning of out.warnings) warn(`bridge: ${warning}`)
  process.stdout.write(out.text)
}

/** Reads a Chrome DevTools Recorder user flow into a new workflow (off until turned on). */
export async function importWorkflow(file: string, flags: WorkflowFlags & { name?: string }): Promise<void> {
  const { store, context } = storeOf(flags)
  const json = JSON.parse(readFileSync(file, 'utf8')) as { title?: unknown }
  const fromTitle =
    typeof json.title === 'string'
      ? json.title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '_')
          .replace(/^_+|_+$/g, '')
          .replace(/^(\d)/, 'w$1')
          .slice(0, 48)
      : ''
  const name = flags.name ?? (fromTitle || 'imported')
  if (store.read(name) !== undefined) return fail(`a workflow named ${name} exists already: pass --name`)
  const workflow = fromRecorder(json, name)
  store.write(workflow)
  say(
    `imported ${workflow.steps.length} steps as the workflow ${name} (off: \`bridge workflow set ${name} ask\` to turn it on)`,
  )
  await changed(context)
}

/**
 * Workflow files in `<config dir>/workflows/`: one `<name>.json` each, mode 0600 in a 0700 folder,
 * written atomically (src/config/atomicWrite.ts). The daemon and the CLI both use this module; a file
 * that does not parse is listed as broken, never half-read.
 */
import { lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { atomicWriteFile, ensurePrivateDir } from '../config/atomicWrite'
import { parseWorkflow, WORKFLOW_FORMAT_VERSION, type Workflow } from './format'
import { WORKFLOW_NAME_MAX } from '../protocol/workflow'

const NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/
/** Files over this are refused unread: a workflow is steps, not data. */
const MAX_FILE_BYTES = 2 * 1024 * 1024

export type Loaded = { ok: true; workflow: Workflow } | { ok: false; name: string; message: string }

export function workflowsDir(configDir: string): string {
  return join(configDir, 'workflows')
}

/** Whether `name` may name a workflow (and so a tool `workflow_<name>`). */
export function isWorkflowName(name: string): boolean {
  return name.length <= WORKFLOW_NAME_MAX && NAME.test(name)
}

export function assertWorkflowName(name: string): void {
  if (!isWorkflowName(name))
    throw new Error(
      `"${name.slice(0, 60)}" is not a workflow name: lowercase letters and digits in words joined by single underscores, starting with a letter, at most ${WORKFLOW_NAME_MAX} characters (e.g. sign_in_and_search)`,
    )
}

export interface WorkflowStore {
  readonly dir: string
  /** Every workflow file, sorted by name; broken files as refusals. */
  list(): Loaded[]
  read(name: string): Loaded | undefined
  /** Checks the workflow against the schema, then writes it atomically (0600). Throws on a bad one. */
  write(workflow: Workflow): void
  remove(name: string): boolean
  /** Renames the file and the workflow in it; refuses to overwrite another. */
  rename(from: string, to: string): void
}

export function createWorkflowStore(configDir: string): WorkflowStore {
  const dir = workflowsDir(configDir)
  const fileOf = (name: string) => {
    assertWorkflowName(name)
    return join(dir, `${name}.json`)
  }
  const load = (name: string): Loaded | undefined => {
    const file = fileOf(name)
    let stats
    try {
      stats = lstatSync(file)
    } catch {
      return undefined
    }
    // A link could point anywhere: workflows are plain files bridge wrote.
    if (!stats.isFile()) return { ok: false, name, message: 'not a plain file' }
    if (stats.size > MAX_FILE_BYTES) return { ok: false, name, message: `over ${MAX_FILE_BYTES} bytes` }
    let parsed: unknown
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'))
    } catch (error) {
      return { ok: false, name, message: `not JSON: ${(error as Error).message.slice(0, 200)}` }
    }
    const checked = parseWorkflow(parsed)
    if (!checked.ok) return { ok: false, name, message: checked.message }
    if (checked.value.name !== name)
      return { ok: false, name, message: `the file names the workflow ${checked.value.name}, not ${name}` }
    return { ok: true, workflow: checked.value }
  }
  const write = (workflow: Workflow) => {
    const checked = parseWorkflow({ ...workflow, version: WORKFLOW_FORMAT_VERSION })
    if (!checked.ok) throw new Error(`the workflow ${workflow.name} is not valid: ${checked.message}`)
    ensurePrivateDir(dir)
    atomicWriteFile(fileOf(workflow.name), `${JSON.stringify(checked.value, null, 2)}\n`)
  }
  return {
    dir,
    list() {
      let names: string[]
      try {
        names = readdirSync(dir)
      } catch {
        return []
      }
      return names
        .filter((n) => n.endsWith('.json') && isWorkflowName(n.slice(0, -5)))
        .sort()
        .map((n) => load(n.slice(0, -5)))
        .filter((l): l is Loaded => l !== undefined)
    },
    read: load,
    write,
    remove(name) {
      const file = fileOf(name)
      if (load(name) === undefined) return false
      rmSync(file, { force: true })
      return true
    },
    rename(from, to) {
      const loaded = load(from)
      if (!loaded) throw new Error(`there is no workflow named ${from}`)
      if (!loaded.ok) throw new Error(`the workflow ${from} cannot be read: ${loaded.message}`)
      if (load(to) !== undefined) throw new Error(`a workflow named ${to} exists already`)
      write({ ...loaded.workflow, name: to, updatedAt: new Date().toISOString() })
      rmSync(fileOf(from), { force: true })
    },
  }
}

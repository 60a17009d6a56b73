/**
 * The side panel's workflow requests (src/protocol/workflowPanel.ts): the daemon owns the files, so
 * each edit is read, checked and written here through the store the CLI uses (same name, permission
 * and schema checks), then the daemon re-reads the folder and tells agents and the extension.
 */
import { JsonRpcErrorCode } from '../protocol'
import type { WorkflowView } from '../protocol/workflowPanel'
import { RpcError } from '../rpc/peer'
import { assertUnchanged, personWorkflow, withoutStep, withVariableRenamed } from '../workflows/edits'
import type { Workflow } from '../workflows/format'
import { stepInWords } from '../workflows/plan'
import type { WorkflowStore } from '../workflows/store'
import type { MethodHandlers } from './methodHandler'

type WorkflowMethodName =
  | 'workflow.list'
  | 'workflow.setPermission'
  | 'workflow.removeStep'
  | 'workflow.renameVariable'
  | 'workflow.remove'
  | 'workflow.saveRecording'

export interface WorkflowMethodsDeps {
  store: WorkflowStore
  /** A file changed: the daemon re-reads the folder and announces the tool list. */
  onChanged(): void
}

const refused = (message: string) => new RpcError(JsonRpcErrorCode.invalidParams, message)
/** The handler's answer, or its refusal as a rejected promise (never a throw out of the call). */
const answer = <T>(work: () => T): Promise<T> => new Promise<T>((resolve) => resolve(work()))

function viewOf(workflow: Workflow): WorkflowView {
  return {
    name: workflow.name,
    permission: workflow.permission,
    description: workflow.description,
    recordedBy: workflow.recordedBy,
    updatedAt: workflow.updatedAt,
    steps: workflow.steps.map((s) => stepInWords(s).slice(0, 3000)),
    variables: workflow.variables.map((v) => ({
      name: v.name,
      secret: v.secret,
      ...(v.default !== undefined ? { default: v.default } : {}),
    })),
  }
}

export function createWorkflowMethods(deps: WorkflowMethodsDeps): Pick<MethodHandlers, WorkflowMethodName> {
  const { store } = deps
  const readOk = (name: string): Workflow => {
    const loaded = store.read(name)
    if (!loaded) throw refused(`there is no workflow named ${name}`)
    if (!loaded.ok) throw refused(`the workflow ${name} cannot be read: ${loaded.message}`)
    return loaded.workflow
  }
  /** Reads, edits, writes (the store checks the schema again), then tells everyone. */
  const edit = (name: string, change: (workflow: Workflow) => Workflow) =>
    answer(() => {
      let next: Workflow
      try {
        next = change(readOk(name))
        store.write(next)
      } catch (error) {
        if (error instanceof RpcError) throw error
        throw refused((error as Error).message)
      }
      deps.onChanged()
      return { ok: true }
    })
  return {
    'workflow.list': () =>
      Promise.resolve({
        workflows: store
          .list()
          .map((l) =>
            l.ok
              ? viewOf(l.workflow)
              : { name: l.name, broken: l.message.slice(0, 500), steps: [], variables: [] },
          ),
      }),
    'workflow.setPermission': ({ name, permission }) =>
      edit(name, (w) => ({ ...w, permission, updatedAt: new Date().toISOString() })),
    'workflow.removeStep': ({ name, step, seen }) =>
      edit(name, (w) => (assertUnchanged(w, seen), withoutStep(w, step))),
    'workflow.renameVariable': ({ name, from, to, seen }) =>
      edit(name, (w) => (assertUnchanged(w, seen), withVariableRenamed(w, from, to))),
    'workflow.remove': ({ name }) =>
      answer(() => {
        if (!store.remove(name)) throw refused(`there is no workflow named ${name}`)
        deps.onChanged()
        return { ok: true }
      }),
    'workflow.saveRecording': ({ name, description, steps }) =>
      answer(() => {
        // A person names a new workflow: one that exists is not replaced from the panel.
        if (store.read(name) !== undefined)
          throw refused(`a workflow named ${name} exists already: choose another name`)
        let saved
        try {
          saved = personWorkflow(name, description, steps)
          store.write(saved.workflow)
        } catch (error) {
          throw refused(`the recording could not be saved: ${(error as Error).message}`)
        }
        deps.onChanged()
        const { workflow } = saved
        return {
          name: workflow.name,
          steps: workflow.steps.map((s, i) => `${i + 1}. ${stepInWords(s)}`),
          variables: workflow.variables.map((v) => (v.secret ? `${v.name} (secret, not stored)` : v.name)),
        }
      }),
  }
}

/**
 * The side panel's workflow commands in the service worker. Edits go to the daemon, which owns the
 * files and checks every request (src/ws/workflowMethods.ts); the worker checks their shape first, so
 * nothing but a well-formed request of a known kind leaves it. Record / Stop drive the person's
 * recorder (../recorder/personRecorder.ts); Stop hands its steps to the daemon to save.
 */
import type { ClientRequestName } from '../../src/protocol'
import { WORKFLOW_NAME_MAX, WORKFLOW_NAME_PATTERN } from '../../src/protocol/workflow'
import type { PersonRecorder } from '../recorder/personRecorder'
import type { ClientParams, ClientResult } from './rpc'
import type { PanelCommand, WorkflowCommand } from '../shared/panelTypes'

const NAME = new RegExp(WORKFLOW_NAME_PATTERN)
const PERMISSIONS = new Set(['off', 'ask', 'auto'])

const WORKFLOW_COMMANDS = new Set<string>([
  'listWorkflows',
  'setWorkflowPermission',
  'removeWorkflowStep',
  'renameWorkflowVariable',
  'removeWorkflow',
  'recordStart',
  'recordStop',
  'recordCancel',
])

export const isWorkflowCommand = (cmd: PanelCommand): cmd is WorkflowCommand =>
  WORKFLOW_COMMANDS.has(cmd.type)

/** A request to the daemon, typed by src/protocol (./rpc). */
type Ask = <K extends ClientRequestName>(method: K, params: ClientParams<K>) => Promise<ClientResult<K>>

const str = (value: unknown, max: number, what: string): string => {
  if (typeof value !== 'string' || value.length > max) throw new Error(`${what} is not valid.`)
  return value
}
const workflowName = (value: unknown): string => {
  const name = str(value, WORKFLOW_NAME_MAX, 'The workflow name')
  if (!NAME.test(name))
    throw new Error(
      'A workflow name is lowercase letters and digits in words joined by single underscores, starting with a letter (e.g. order_lamp).',
    )
  return name
}

/** Runs one workflow command; throws with a sentence for the panel. */
export async function workflowCommand(
  cmd: WorkflowCommand,
  ask: Ask,
  recorder: PersonRecorder,
): Promise<unknown> {
  switch (cmd.type) {
    case 'listWorkflows':
      return ask('workflow.list', {})
    case 'setWorkflowPermission':
      if (!PERMISSIONS.has(cmd.permission)) throw new Error('The permission is off, ask or auto.')
      return ask('workflow.setPermission', { name: workflowName(cmd.name), permission: cmd.permission })
    case 'removeWorkflowStep':
      if (!Number.isInteger(cmd.step) || cmd.step < 1) throw new Error('The step number is not valid.')
      return ask('workflow.removeStep', {
        name: workflowName(cmd.name),
        step: cmd.step,
        seen: str(cmd.seen, 40, 'The version shown'),
      })
    case 'renameWorkflowVariable':
      return ask('workflow.renameVariable', {
        name: workflowName(cmd.name),
        from: str(cmd.from, 40, 'The variable'),
        to: str(cmd.to, 40, 'The new name'),
        seen: str(cmd.seen, 40, 'The version shown'),
      })
    case 'removeWorkflow':
      return ask('workflow.remove', { name: workflowName(cmd.name) })
    case 'recordStart': {
      const name = workflowName(cmd.name)
      const description = str(cmd.description, 1000, 'The description')
      const { workflows } = (await ask('workflow.list', {})) as { workflows: { name: string }[] }
      if (workflows.some((w) => w.name === name))
        throw new Error(`A workflow named ${name} exists already: choose another name.`)
      return recorder.start(name, description)
    }
    case 'recordStop': {
      const recorded = await recorder.stop()
      try {
        const saved = await ask('workflow.saveRecording', recorded)
        recorder.clear()
        return saved
      } catch (error) {
        // Nothing is lost: the recording goes on, and Stop may be pressed again.
        recorder.resume()
        throw error
      }
    }
    case 'recordCancel':
      recorder.clear()
      return true
  }
}

import { useEffect, useState } from 'preact/hooks'
import { workflowToolName } from '../../src/protocol/toolNames'
import type { Permission } from '../shared/wireTypes'
import type { PanelState, WorkflowCommand, WorkflowView } from '../shared/panelTypes'
import { command } from './background'
import { PermissionControl } from './PermissionControl'
import { Visible } from './Visible'
import { WorkflowRecorder } from './WorkflowRecorder'

type OnError = (message: string) => void

/** Sends one workflow command; on success the list is read again. */
async function edit(cmd: WorkflowCommand, onError: OnError, reload: () => void): Promise<boolean> {
  const reply = await command(cmd)
  if (!reply.ok) onError(reply.message)
  reload()
  return reply.ok
}

function VariableRow({
  workflow,
  variable,
  connected,
  onError,
  reload,
}: {
  workflow: WorkflowView
  variable: WorkflowView['variables'][number]
  connected: boolean
  onError: OnError
  reload: () => void
}) {
  const [renaming, setRenaming] = useState<string | null>(null)
  const save = async () => {
    if (renaming === null) return
    const ok = await edit(
      {
        type: 'renameWorkflowVariable',
        name: workflow.name,
        from: variable.name,
        to: renaming.trim(),
        seen: workflow.updatedAt ?? '',
      },
      onError,
      reload,
    )
    if (ok) setRenaming(null)
  }
  return (
    <li data-testid="workflow-variable" data-name={variable.name}>
      {renaming === null ? (
        <>
          <code>
            <Visible text={variable.name} />
          </code>{' '}
          <span class="muted small" data-testid="workflow-variable-value">
            {variable.secret ? (
              'secret: not stored, given at each run'
            ) : (
              <>
                default <Visible text={JSON.stringify(variable.default ?? '').slice(0, 200)} />
              </>
            )}
          </span>{' '}
          <button
            type="button"
            class="link"
            disabled={!connected}
            data-testid="workflow-variable-rename"
            onClick={() => setRenaming(variable.name)}
          >
            Rename
          </button>
        </>
      ) : (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault()
            void save()
          }}
        >
          <input
            class="grow"
            aria-label={`New name of ${variable.name}`}
            value={renaming}
            maxLength={40}
            data-testid="workflow-variable-input"
            onInput={(e) => setRenaming((e.target as HTMLInputElement).value)}
          />
          <button type="submit" data-testid="workflow-variable-save" disabled={!connected}>
            Save
          </button>
          <button type="button" class="link" onClick={() => setRenaming(null)}>
            Cancel
          </button>
        </form>
      )}
    </li>
  )
}

function WorkflowCard({
  workflow,
  connected,
  onError,
  reload,
}: {
  workflow: WorkflowView
  connected: boolean
  onError: OnError
  reload: () => void
}) {
  const [confirming, setConfirming] = useState(false)
  const { name } = workflow
  if (workflow.broken !== undefined)
    return (
      <li class="plugin" data-testid={`workflow-${name}`} data-broken="true">
        <code>
          <Visible text={name} />
        </code>{' '}
        <span class="error-text small">
          cannot be read: <Visible text={workflow.broken} />
        </span>
      </li>
    )
  const seen = workflow.updatedAt ?? ''
  return (
    <li class="plugin" data-testid={`workflow-${name}`} data-permission={workflow.permission}>
      <div class="row">
        <span class="grow">
          <code>{workflowToolName(name)}</code>{' '}
          <span class="muted small">
            {workflow.recordedBy === 'person'
              ? 'recorded by you'
              : `recorded by ${workflow.recordedBy ?? ''}`}
          </span>
        </span>
        <PermissionControl
          value={workflow.permission ?? 'off'}
          testId="workflow-permission"
          label={`${name} permission`}
          disabled={!connected}
          onChange={(permission: Permission) =>
            void edit({ type: 'setWorkflowPermission', name, permission }, onError, reload)
          }
        />
      </div>
      {workflow.description && (
        <p class="small muted" data-testid="workflow-description">
          <Visible text={workflow.description} />
        </p>
      )}
      <ol class="small" data-testid="workflow-steps">
        {workflow.steps.map((step, i) => (
          <li key={`${seen}-${i}`} data-testid="workflow-step">
            <span data-testid="workflow-step-text">
              <Visible text={step} />
            </span>{' '}
            <button
              type="button"
              class="link"
              title="Delete this step (kept in the file's history)"
              disabled={!connected || workflow.steps.length < 2}
              data-testid="workflow-step-delete"
              onClick={() =>
                void edit({ type: 'removeWorkflowStep', name, step: i + 1, seen }, onError, reload)
              }
            >
              Delete
            </button>
          </li>
        ))}
      </ol>
      {workflow.variables.length > 0 && (
        <ul class="plain small" data-testid="workflow-variables">
          {workflow.variables.map((v) => (
            <VariableRow
              key={`${seen}-${v.name}`}
              workflow={workflow}
              variable={v}
              connected={connected}
              onError={onError}
              reload={reload}
            />
          ))}
        </ul>
      )}
      <div class="buttons">
        {confirming ? (
          <>
            <button
              type="button"
              class="danger"
              disabled={!connected}
              data-testid="workflow-delete-confirm"
              onClick={() => void edit({ type: 'removeWorkflow', name }, onError, reload)}
            >
              Delete {name} for good
            </button>
            <button type="button" class="link" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button
            type="button"
            class="link"
            disabled={!connected}
            data-testid="workflow-delete"
            onClick={() => setConfirming(true)}
          >
            Delete workflow
          </button>
        )}
      </div>
    </li>
  )
}

/**
 * Saved workflows (docs/workflows.md): each with its steps in words, its variables and its permission;
 * a step can be deleted, a variable renamed, the workflow turned on or deleted. The daemon owns the
 * files: every change is a request it checks. Page text (step targets, defaults) is shown as text.
 */
export function WorkflowList({ state, onError }: { state: PanelState; onError: OnError }) {
  const { workflowsRevision: revision, recording } = state
  const connected = state.connection.status === 'connected'
  const [workflows, setWorkflows] = useState<WorkflowView[] | null>(null)
  /** The list could not be read (a daemon of another version): said here, not as the panel's error. */
  const [unread, setUnread] = useState<string | null>(null)
  const [reads, setReads] = useState(0)
  const reload = () => setReads((n) => n + 1)
  useEffect(() => {
    if (!connected) return
    let live = true
    void command<{ workflows: WorkflowView[] }>({ type: 'listWorkflows' }).then((r) => {
      if (!live) return
      if (r.ok) {
        setWorkflows(r.value.workflows)
        setUnread(null)
      } else setUnread(r.message)
    })
    return () => {
      live = false
    }
  }, [revision, connected, reads])
  return (
    <section data-testid="workflows">
      <h2>Workflows</h2>
      <WorkflowRecorder
        recording={recording}
        connected={connected}
        onError={onError}
        onSaved={reload}
        taken={(workflows ?? []).map((w) => w.name)}
      />
      {unread && (
        <p class="muted small" data-testid="workflows-unread">
          The workflows could not be listed: <Visible text={unread} />
        </p>
      )}
      {workflows?.length === 0 && (
        <p class="muted small">No workflows yet: record one here, or ask an agent to.</p>
      )}
      <ul class="plain">
        {workflows?.map((w) => (
          <WorkflowCard key={w.name} workflow={w} connected={connected} onError={onError} reload={reload} />
        ))}
      </ul>
    </section>
  )
}

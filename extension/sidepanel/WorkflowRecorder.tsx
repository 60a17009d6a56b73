import { useState } from 'preact/hooks'
import type { RecordingView } from '../shared/panelTypes'
import { command } from './background'
import { Visible } from './Visible'

interface Saved {
  name: string
  steps: string[]
  variables: string[]
}

/**
 * Record / Stop: the person shows a task in the front tab, and it is saved as a workflow (off until
 * turned on). What is typed into a password field becomes a secret variable with no stored value.
 */
export function WorkflowRecorder({
  recording,
  connected,
  onError,
  onSaved,
  taken,
}: {
  recording: RecordingView | undefined
  connected: boolean
  onError: (message: string) => void
  onSaved: () => void
  taken: string[]
}) {
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [busy, setBusy] = useState(false)
  const [saved, setSaved] = useState<Saved | null>(null)
  const run = async (work: () => Promise<void>) => {
    setBusy(true)
    try {
      await work()
    } finally {
      setBusy(false)
    }
  }
  const start = () =>
    run(async () => {
      setSaved(null)
      const r = await command({ type: 'recordStart', name: name.trim(), description: description.trim() })
      if (!r.ok) onError(r.message)
    })
  const stop = () =>
    run(async () => {
      const r = await command<Saved>({ type: 'recordStop' })
      if (!r.ok) return onError(r.message)
      setSaved(r.value)
      setName('')
      setDescription('')
      onSaved()
    })
  if (recording)
    return (
      <div class="banner" data-testid="recording" data-steps={recording.steps}>
        <p>
          Recording <code>{recording.name}</code> in{' '}
          <span data-testid="recording-tab">
            <Visible text={recording.title || `tab ${recording.tabId}`} />
          </span>
          : <span data-testid="recording-steps">{recording.steps}</span> step
          {recording.steps === 1 ? '' : 's'} so far. Do the task in that tab; what you type in a password
          field is never saved.
        </p>
        <div class="buttons">
          <button
            type="button"
            disabled={busy || !connected}
            data-testid="record-stop"
            onClick={() => void stop()}
          >
            Stop and save
          </button>
          <button
            type="button"
            class="link"
            disabled={busy}
            data-testid="record-cancel"
            onClick={() => void command({ type: 'recordCancel' })}
          >
            Discard
          </button>
        </div>
      </div>
    )
  const exists = taken.includes(name.trim())
  return (
    <div data-testid="recorder">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          void start()
        }}
      >
        <input
          class="grow"
          aria-label="New workflow name"
          placeholder="new_workflow_name"
          value={name}
          maxLength={48}
          data-testid="record-name"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button
          type="submit"
          disabled={busy || !connected || !name.trim() || exists}
          title="Record what you do in the front tab"
          data-testid="record-start"
        >
          Record
        </button>
      </form>
      <input
        class="grow small"
        aria-label="What it does"
        placeholder="What it does (optional)"
        value={description}
        maxLength={1000}
        data-testid="record-description"
        onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
      />
      {exists && <p class="small warning-text">A workflow with this name exists already.</p>}
      {saved && (
        <p class="small ok-text" data-testid="record-saved">
          Saved <code>{saved.name}</code>: {saved.steps.length} steps
          {saved.variables.length ? `, variables ${saved.variables.join(', ')}` : ''}. It is off until you
          turn it on below.
        </p>
      )}
    </div>
  )
}

/** Recording a workflow: what the agent does between start and stop becomes a replayable workflow. */
import { Type } from '@sinclair/typebox'
import { WORKFLOW_NAME_MAX, WORKFLOW_NAME_PATTERN } from '../protocol/workflow'
import { defineBrowserTool } from './define'

export const recordingStart = defineBrowserTool({
  name: 'browser_recording_start',
  displayName: 'Start recording a workflow',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  description:
    'Start recording your next browser calls as a workflow the user can replay without a model: navigate, click, type, select, press, scroll, upload, dialogs, wait_for, plugin tools. Values typed become variables (passwords and values read from cookies or storage become secrets, never stored). Stop with browser_recording_stop. Returns { recording }.',
  input: Type.Object({
    name: Type.String({
      pattern: WORKFLOW_NAME_PATTERN,
      maxLength: WORKFLOW_NAME_MAX,
      description: 'Lowercase words joined by _, e.g. sign_in_and_search. Becomes the tool workflow_<name>.',
    }),
    description: Type.Optional(
      Type.String({ maxLength: 1000, description: 'What the workflow does, for people and agents.' }),
    ),
  }),
  output: Type.Object({ recording: Type.String() }),
})

export const recordingStop = defineBrowserTool({
  name: 'browser_recording_stop',
  displayName: 'Stop recording a workflow',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  description:
    'Stop the recording and save it as ~/.bridge/workflows/<name>.json (off until the user turns it on). Returns { recording, saved, steps (in words), variables }.',
  input: Type.Object({}),
  output: Type.Object({ recording: Type.String() }),
})

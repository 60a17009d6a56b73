import type { ToolFailure } from './toolInvocationTypes'

/** The failures the machine itself decides, with the text the client and the audit log see. */
export const FAILURES = {
  internalValidate: { code: 'tool_error', message: 'the call could not be validated', category: 'internal' },
  internalDispatch: { code: 'tool_error', message: 'the call could not be dispatched', category: 'internal' },
  internalApproval: {
    code: 'tool_error',
    message: 'the approval could not be prepared',
    category: 'internal',
  },
  permissionOff: {
    code: 'permission_off',
    message: 'this tool is off; enable it in the bridge side panel or with `bridge config set`',
    category: 'permission',
  },
  askWithoutExtension: {
    code: 'extension_not_connected',
    message: 'this tool needs approval in the browser, but the bridge extension is not connected',
    category: 'connection',
  },
  approvalDenied: { code: 'approval_denied', message: 'the user denied the call', category: 'permission' },
  approvalTimeout: {
    code: 'approval_timeout',
    message: 'nobody approved the call in time',
    category: 'permission',
  },
  lostDuringApproval: {
    code: 'extension_disconnected',
    message: 'the extension disconnected while the call awaited approval',
    category: 'connection',
  },
  lostDuringCall: {
    code: 'extension_disconnected',
    message: 'the extension disconnected during the call',
    category: 'connection',
  },
  noAnswer: {
    code: 'timeout',
    message: 'the tool did not answer or report progress in time',
    category: 'timeout',
  },
  maxDuration: {
    code: 'timeout',
    message: 'the tool ran past the maximum duration of a call',
    category: 'timeout',
  },
  noExtension: {
    code: 'extension_not_connected',
    message: 'the bridge extension is not connected to the daemon',
    category: 'connection',
  },
  declarationChanged: {
    code: 'declaration_changed',
    message:
      'the site changed this tool (its description, input or hints) while the call waited for approval: the approval was withdrawn and the call did not run; call it again to be asked about what the site declares now',
    category: 'permission',
  },
  cancelled: { code: 'cancelled', message: 'the client cancelled the call', category: 'connection' },
  shuttingDown: {
    code: 'shutting_down',
    message: 'the daemon is shutting down; call again once it is back',
    category: 'connection',
  },
} satisfies Record<string, ToolFailure>
export type FailureReason = keyof typeof FAILURES

import { setup } from 'xstate'

export interface McpSessionInput {
  sessionId: string
  openedAt: number
}

/**
 * One MCP client session: open -> closed (DELETE /mcp, the transport closing, or shutdown). Entering
 * closed disposes the session once: its transport closes and its unfinished calls are cancelled.
 */
export const mcpSessionMachine = setup({
  types: {
    context: {} as McpSessionInput,
    input: {} as McpSessionInput,
    events: {} as { type: 'session.close'; reason: string },
  },
  actions: {
    disposeSession: (_, _params: { reason: string }) => undefined,
  },
}).createMachine({
  id: 'mcpSession',
  context: ({ input }) => input,
  initial: 'open',
  states: {
    open: {
      on: {
        'session.close': {
          target: 'closed',
          actions: { type: 'disposeSession', params: ({ event }) => ({ reason: event.reason }) },
        },
      },
    },
    closed: { type: 'final' },
  },
})

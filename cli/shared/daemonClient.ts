/** The CLI's commands talk to a running daemon through src/http/daemonClient.ts (the proof first, then the secret). */
export * from '../../src/http/daemonClient'

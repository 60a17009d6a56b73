/**
 * Who may talk to the daemon: the auth.json secret (the extension and the CLI) and the named MCP
 * clients' tokens (clients.json). Both are re-read on every plugin reload.
 *
 * Secret rotation: `bridge config rotate-secret` writes a new auth.json, then POSTs /reload with the
 * old secret. From then on only the new one is accepted; `onSecretRotated` closes the sockets opened
 * with the old one, and the extension re-reads auth.json and reconnects.
 */
import { log, registerSecret } from '../log'
import { readSecret } from './auth'
import { createClientRegistry } from './clientRegistry'
import type { ClientEntry } from './clients'
import type { BridgePaths } from './paths'

const logger = log.withTag('config')

export interface Credentials {
  secret(): string
  clients(): readonly ClientEntry[]
  /** Re-reads auth.json and clients.json; a broken auth.json keeps the current secret. */
  reread(): void
  close(): void
}

export interface CredentialsDeps {
  /** auth.json and clients.json. */
  paths: Pick<BridgePaths, 'authFile' | 'clientsFile'>
  /** The secret read at start-up (./setup). */
  secret: string
  onSecretRotated(): void
  /** A named client was removed or its token replaced: its sessions must end. */
  onClientRemoved(name: string): void
  /** A named client's scope changed (bridge client set): what it lists changed. */
  onClientScopeChanged?: (name: string) => void
  /** A named client may no longer show approvals itself: the questions it holds are withdrawn. */
  onClientApprovalsOff?: (name: string) => void
}

export function createCredentials(deps: CredentialsDeps): Credentials {
  let secret = deps.secret
  registerSecret(secret)
  const clients = createClientRegistry({
    file: deps.paths.clientsFile,
    onRemoved: (name) => {
      logger.info(`MCP client "${name}" no longer has access: its sessions end now`)
      deps.onClientRemoved(name)
    },
    onToken: registerSecret,
    ...(deps.onClientScopeChanged ? { onScopeChanged: deps.onClientScopeChanged } : {}),
    ...(deps.onClientApprovalsOff ? { onApprovalsOff: deps.onClientApprovalsOff } : {}),
  })
  const rereadSecret = (): void => {
    try {
      const next = readSecret(deps.paths.authFile)
      if (next === secret) return
      registerSecret(next)
      secret = next
      logger.info('auth.json holds a new secret: the previous one is no longer accepted')
      deps.onSecretRotated()
    } catch (error) {
      logger.warn(
        `reload: kept the current secret: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }
  return {
    secret: () => secret,
    clients: () => clients.current(),
    reread: () => {
      rereadSecret()
      clients.reload()
    },
    close: () => clients.close(),
  }
}

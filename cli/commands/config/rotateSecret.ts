/**
 * `bridge config rotate-secret --confirm`: a new 256-bit secret in auth.json (atomic, 0600). A running
 * daemon is told with `POST /reload` carrying the OLD secret; it then accepts only the new one, and
 * the extension (which re-reads auth.json) reconnects with it. The reload goes out only after the
 * daemon proved it knows the OLD secret (src/http/daemonClient.ts). MCP clients have tokens of their
 * own (clients.json), so they are not affected.
 */
import { generateSecret, writeSecret } from '../../../src/config/auth'
import { fetchHealth } from '../../../src/http/daemonClient'
import { fail, say, warn } from '../../shared/output'
import { runningConfigContext, requestReload, runningDaemon, type ConfigFlags } from './context'

export async function rotateSecret(flags: ConfigFlags): Promise<void> {
  const context = await runningConfigContext(flags)
  const { paths } = context
  if (!flags.confirm) {
    return fail(
      `config rotate-secret replaces the secret in ${paths.authFile}; the extension and the CLI pick it up, MCP clients keep their own tokens. ` +
        'Nothing was changed; run `bridge config rotate-secret --confirm` to do it.',
    )
  }
  const oldSecret = context.secret
  if (oldSecret === null)
    return fail(`${paths.authFile} does not exist yet; \`bridge start\` creates a secret`)
  const daemon = await runningDaemon(context)
  const secret = generateSecret()
  writeSecret(paths.authFile, secret)
  say(`wrote a new secret to ${paths.authFile}`)
  if (daemon) {
    const reloaded = await requestReload(context.port, oldSecret)
    const adopted = reloaded.ok && (await fetchHealth(context.port, secret, 3_000)).ok
    if (adopted)
      say('the running daemon now accepts only the new secret; the extension reconnects with it on its own')
    else
      warn(
        `the running daemon did not take the new secret${reloaded.ok ? '' : ` (${reloaded.message})`}; ` +
          'restart it (`bridge stop`, then `bridge start`)',
      )
  }
  say(
    'MCP clients keep their own tokens (`bridge client list`); a configuration that still holds the old secret stops working.',
  )
}

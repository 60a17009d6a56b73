/**
 * `bridge config show|get [key] [--json] [--show-secret]`: the configuration, the files it lives in
 * and the secret, truncated unless `--show-secret` (which also prints the MCP client configuration).
 */
import { existsSync } from 'node:fs'
import { readConfigFile } from '../../../src/config/configFile'
import { defaultConfig, type Config } from '../../../src/config/schema'
import { fail, say, sayWithSecret } from '../../shared/output'
import { defaultClient, mcpClientConfig } from '../../shared/mcpConfig'
import { configContext, type ConfigFlags } from './context'

const SHOWN_SECRET_CHARS = 8

export function showConfig(key: string | undefined, flags: ConfigFlags): void {
  const { paths, port, secret } = configContext(flags)
  const exists = existsSync(paths.configFile)
  const config: Config = exists ? readConfigFile(paths.configFile) : defaultConfig()
  if (key !== undefined) return showKey(config, key, flags)

  const shownSecret = secret === null ? null : flags.showSecret ? secret : truncate(secret)
  // MCP clients get the `default` client's token, never the secret (which is the extension's and the CLI's).
  const client = flags.showSecret ? defaultClient(paths) : null
  if (flags.json) {
    const out = {
      configDir: paths.dir,
      configFile: paths.configFile,
      configFileExists: exists,
      authFile: paths.authFile,
      secret: shownSecret,
      port,
      config,
      ...(client
        ? {
            mcpClient: client.name,
            mcpClientConfig: JSON.parse(mcpClientConfig(port, client.token)) as unknown,
          }
        : {}),
    }
    return flags.showSecret ? sayWithSecret(JSON.stringify(out, null, 2)) : say(JSON.stringify(out, null, 2))
  }
  say(`config directory  ${paths.dir}`)
  say(`config file       ${paths.configFile}${exists ? '' : ' (does not exist yet: defaults shown)'}`)
  say(`auth file         ${paths.authFile}`)
  if (secret === null) say('secret            none yet (`bridge start` creates it)')
  else if (flags.showSecret)
    sayWithSecret(`secret            ${secret} (auth.json: the extension's and the CLI's only)`)
  else say(`secret            ${truncate(secret)} (truncated; --show-secret prints it)`)
  say(`port              ${port}`)
  say('')
  say(JSON.stringify(config, null, 2))
  if (client) {
    say('')
    say(`MCP client "${client.name}" configuration (holds the client's token; keep it private):`)
    sayWithSecret(mcpClientConfig(port, client.token))
  } else if (flags.showSecret) {
    say('')
    say('no MCP client named "default": `bridge client add <name>` creates one and prints its configuration')
  }
}

function truncate(secret: string): string {
  return `${secret.slice(0, SHOWN_SECRET_CHARS)}…`
}

/** `bridge config get port`, `bridge config get permissions.notes`: one value by its dotted path. */
function showKey(config: Config, key: string, flags: ConfigFlags): void {
  let value: unknown = config
  for (const part of key.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part))
      return fail(`config.json has no key "${key}" (keys: ${Object.keys(config).join(', ')})`)
    value = (value as Record<string, unknown>)[part]
  }
  say(typeof value === 'string' && !flags.json ? value : JSON.stringify(value, null, 2))
}

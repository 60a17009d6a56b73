/**
 * `bridge config <show|get|set|path|reset|rotate-secret>`. cac has no nested commands, so `bridge`
 * hands everything after `config` to this small program of its own (like `bridge plugin`).
 *
 * @example
 *   bridge config set tool-permission.notes.list_notes auto
 *   bridge config show --json --show-secret
 */
import { cac } from 'cac'
import { bridgePaths, configDirFromEnv } from '../../src/config/paths'
import { errorText, fail, say } from '../shared/output'
import type { ConfigFlags } from './config/context'
import { resetConfig } from './config/reset'
import { rotateSecret } from './config/rotateSecret'
import { setConfig } from './config/set'
import { showConfig } from './config/show'
import { thisCommand } from '../shared/selfCommand'

/** Runs `bridge config ...`; sets process.exitCode on failure. */
export async function runConfigCommand(args: readonly string[]): Promise<void> {
  const cli = cac(`${thisCommand().command} config`)
  const port = '--port <port>'
  const portHelp = 'Port of a running daemon (default: BRIDGE_PORT, config.json, 9515)'
  cli
    .command('show [key]', 'Show the configuration (secret truncated); a key prints one value')
    .alias('get')
    .option('--json', 'Print JSON')
    .option('--show-secret', 'Print the full secret and the MCP client configuration')
    .option(port, portHelp)
    .action((key: string | undefined, flags: ConfigFlags) => showConfig(key, flags))
  cli
    .command('set <key> [value]', 'Change one setting; a running daemon re-reads it at once')
    .option(
      '-f, --force',
      'localPlugins.add: accept a path that does not exist yet; permissions: a plugin not installed yet',
    )
    .option(port, portHelp)
    .usage(
      'set <key> [value]\n\n  flow-guard ask|block|off\n  flow-guard.<client> ask|block|off|default\n  tool-permission.<plugin>.<tool> off|ask|auto\n  plugin-permission.<plugin> off|ask|auto\n' +
        '  port <1-65535>\n  localPlugins.add <path>\n  localPlugins.remove <path>',
    )
    .action((key: string, value: string | undefined, flags: ConfigFlags) =>
      setConfig(String(key), value === undefined ? undefined : String(value), flags),
    )
  cli
    .command('path', 'Print the path of config.json')
    .action(() => say(bridgePaths(configDirFromEnv()).configFile))
  cli
    .command('reset', 'Delete config.json (auth.json is kept)')
    .option('--confirm', 'Required: really delete it')
    .option(port, portHelp)
    .action((flags: ConfigFlags) => resetConfig(flags))
  cli
    .command('rotate-secret', 'Replace the secret in auth.json; a running daemon adopts it')
    .option('--confirm', 'Required: really replace it')
    .option(port, portHelp)
    .action((flags: ConfigFlags) => rotateSecret(flags))
  cli.help()
  try {
    cli.parse(['node', 'bridge config', ...args], { run: false })
    if (!cli.matchedCommand) {
      if (cli.options.help) return
      if (args.length) return fail(`unknown config command "${args[0]}"; see \`bridge config --help\``)
      return showConfig(undefined, cli.options)
    }
    await cli.runMatchedCommand()
  } catch (error) {
    fail(errorText(error))
  }
}

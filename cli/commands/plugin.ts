/**
 * `bridge plugin <create|list|search|install|remove>`. cac has no nested commands, so `bridge` hands everything after
 * `plugin` to this small program of its own.
 *
 * @example
 *   bridge plugin create my-site --domain my-site.com
 *   bridge plugin list --verbose
 */
import { cac } from 'cac'
import { createPlugin, type CreateFlags } from './plugin/create'
import { runList, type ListFlags } from './plugin/list'
import { runInstall, runRemove, runSearch, type RegistryFlags } from './plugin/registry'
import { errorText, fail } from '../shared/output'
import { thisCommand } from '../shared/selfCommand'
import { neutralizeText } from '../../src/protocol/untrustedText'

const COMMANDS = 'create, list, search, install and remove'

/** Runs `bridge plugin ...` with `args` = the words after `plugin`. Sets process.exitCode on failure. */
export async function runPluginCommand(args: readonly string[]): Promise<void> {
  const cli = cac(`${thisCommand().command} plugin`)
  cli
    .command('create [name]', 'Scaffold a plugin package in ./bridge-plugin-<name>')
    .option('--domain <domain>', 'Site the plugin works on, e.g. example.com')
    .option('--display <name>', 'Display name shown in the side panel')
    .option('--description <text>', 'One-line description')
    .option('--dir <path>', 'Create the package in this folder (default: current folder)')
    .action(async (name: string | undefined, flags: CreateFlags) => {
      await createPlugin(name === undefined ? undefined : String(name), flags)
    })
  cli
    .command('list', 'List plugins (from the running daemon, else from config.json and npm)')
    .alias('ls')
    .option('--json', 'Print JSON')
    .option('--port <port>', 'Daemon port (default: BRIDGE_PORT, config.json, 9515)')
    .option('-v, --verbose', 'Also list tool names')
    .action((flags: ListFlags) => runList(flags))
  cli
    .command('search [query]', 'Search the npm registry for plugins (all of them without a query)')
    .option('--json', 'Print JSON')
    .action((query: string | undefined, flags: RegistryFlags) =>
      runSearch(query === undefined ? undefined : String(query), flags),
    )
  cli
    .command('install <name>', 'Install a plugin package globally and reload the daemon')
    .alias('add')
    .option('--port <port>', 'Daemon port to reload (default: BRIDGE_PORT, config.json, 9515)')
    .action((name: string, flags: RegistryFlags) => runInstall(String(name), flags))
  cli
    .command('remove <name>', 'Uninstall a plugin and drop it from localPlugins (needs --confirm)')
    .alias('rm')
    .option('-y, --confirm', 'Required: really remove it')
    .option('--port <port>', 'Daemon port to reload (default: BRIDGE_PORT, config.json, 9515)')
    .action((name: string, flags: RegistryFlags) => runRemove(String(name), flags))
  cli.help()
  try {
    cli.parse(['node', 'bridge plugin', ...args], { run: false })
    if (!cli.matchedCommand) {
      if (cli.options.help) return
      const word = args.find((a) => !a.startsWith('-'))
      if (word !== undefined)
        fail(`unknown command "plugin ${neutralizeText(word, 64)}"; the plugin commands are ${COMMANDS}`)
      else if (args.length) fail(`no plugin command given; the plugin commands are ${COMMANDS}`)
      cli.outputHelp()
      return
    }
    await cli.runMatchedCommand()
  } catch (error) {
    fail(errorText(error))
  }
}

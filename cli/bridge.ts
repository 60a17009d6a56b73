/**
 * `bridge`: start and supervise the local daemon. One file per command under cli/commands/.
 * Global options: `--port <n>` (then BRIDGE_PORT, then config.json `port`, then 9515), `-V`, `-h`.
 * No subcommand means `bridge status`.
 */
import { cac } from 'cac'
import { BRIDGE_VERSION } from '../src/protocol/constants'
import { registerAudit } from './commands/audit'
import { runClientCommand } from './commands/client'
import { runConfigCommand } from './commands/config'
import { registerDemo } from './commands/demo'
import { registerDoctor } from './commands/doctor'
import { registerLogs } from './commands/logs'
import { registerMcp } from './commands/mcp'
import { runPluginCommand } from './commands/plugin'
import { runSiteCommand } from './commands/site'
import { registerStart } from './commands/start'
import { registerStatus, status } from './commands/status'
import { registerStop } from './commands/stop'
import { registerUpdate } from './commands/update'
import { runWorkflowCommand } from './commands/workflow'
import { commandGroupArgs } from './shared/commandGroup'
import { errorText, fail } from './shared/output'
import { negativeValuesJoined } from './shared/negativeValues'
import { portFlagsProblem } from './shared/portFlags'
import { thisCommand } from './shared/selfCommand'

// Help shows the command as it runs from this shell (`bridge-mcp` where PATH's `bridge` is iproute2's).
const cli = cac(thisCommand().command)
cli.option('--port <port>', 'Daemon port (default: BRIDGE_PORT, config.json port, 9515)')

registerStart(cli)
registerStatus(cli)
registerStop(cli)
registerAudit(cli)
registerLogs(cli)
registerDoctor(cli)
registerUpdate(cli)
registerDemo(cli)
registerMcp(cli)

// The command groups below are run before this parser (GROUPS); these entries list them in `bridge --help`.
cli
  .command(
    'plugin [...args]',
    'Plugins: `plugin create|list|search|install|remove` (see `bridge plugin --help`)',
  )
  .allowUnknownOptions()
  .action((args: string[]) => runPluginCommand(args))
cli
  .command(
    'client [...args]',
    'MCP clients and their tokens: `client add|list|show|remove` (see `bridge client --help`)',
  )
  .allowUnknownOptions()
  .action((args: string[]) => runClientCommand(args))
cli
  .command('site [...args]', "Sites' own tools (WebMCP): `site list|set` (see `bridge site --help`)")
  .allowUnknownOptions()
  .action((args: string[]) => runSiteCommand(args))
cli
  .command(
    'workflow [...args]',
    'Recorded workflows: `workflow list|show|run|rm|rename|set` (see `bridge workflow --help`)',
  )
  .allowUnknownOptions()
  .action((args: string[]) => runWorkflowCommand(args))
cli
  .command(
    'config [...args]',
    'Settings: `config show|set|path|reset|rotate-secret` (see `bridge config --help`)',
  )
  .allowUnknownOptions()
  .action((args: string[]) => runConfigCommand(args))

cli
  .command('[...args]', 'Same as `bridge status`')
  .option('--json', 'Print the raw /health JSON')
  .action((args: string[], flags: { port?: unknown; json?: boolean }) => {
    if (args.length > 0) {
      fail(`unknown command "${args[0]}"; see \`bridge --help\``)
      return
    }
    return status(flags)
  })

cli.help()
cli.version(BRIDGE_VERSION, '-V, --version')

// The command groups, each its own small cac program (cli/shared/commandGroup.ts): run before this
// parser sees the arguments, so `bridge plugin create --help` shows create's help.
const GROUPS = {
  plugin: runPluginCommand,
  config: runConfigCommand,
  client: runClientCommand,
  site: runSiteCommand,
  workflow: runWorkflowCommand,
} satisfies Record<string, (args: readonly string[]) => Promise<void>>

try {
  const args = negativeValuesJoined(process.argv.slice(2))
  // `bridge start` listens on its --port (0: a free port), `bridge demo` serves its site on --site-port.
  const portProblem = portFlagsProblem(args, { start: ['--port'], demo: ['--site-port'] })
  if (portProblem !== undefined) throw new Error(portProblem)
  const group = commandGroupArgs(args, Object.keys(GROUPS) as (keyof typeof GROUPS)[])
  if (group) await GROUPS[group.group](group.args)
  else {
    cli.parse([...process.argv.slice(0, 2), ...args], { run: false })
    await cli.runMatchedCommand()
  }
} catch (error) {
  fail(errorText(error))
}

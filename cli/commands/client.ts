/**
 * `bridge client <add|list|show|approvals|remove>`: named MCP clients, each with a token of its own that opens
 * `/mcp` only. cac has no nested commands, so `bridge` hands everything after `client` to this small
 * program (like `bridge config`).
 *
 * @example
 *   bridge client add laptop-agent --for cursor
 *   bridge client add shopper --plugins shop --builtins tabs,reading
 *   bridge client set laptop-agent --other-agent yes
 *   bridge client show laptop-agent --show-secret
 *   bridge client remove laptop-agent --confirm
 */
import { cac } from 'cac'
import { errorText, fail } from '../shared/output'
import {
  addClientCommand,
  approvalsCommand,
  listClientsCommand,
  removeClientCommand,
  setClientCommand,
  showClientCommand,
  type ClientFlags,
} from './client/actions'
import { MCP_CLIENT_KINDS } from './client/forClient'
import { thisCommand } from '../shared/selfCommand'
import { BUILTIN_GROUPS } from '../../src/config/clientScopes'

const PLUGINS_OPTION = [
  '--plugins <list>',
  'Plugins it may use: comma-separated names, all (default) or none',
] as const
const SITES_OPTION = [
  '--sites <list>',
  'Sites whose own tools it may use: origins such as https://example.com, all (default) or none',
] as const
const BUILTINS_OPTION = [
  '--builtins <list>',
  `Built-in tool groups it may use: ${BUILTIN_GROUPS.join(', ')}; all (default) or none`,
] as const
const OTHER_AGENT_OPTION = [
  '--other-agent [yes|no]',
  "Whether it may act in other clients' tabs (otherAgent: true); default no",
] as const

/** Runs `bridge client ...`; sets process.exitCode on failure. */
export async function runClientCommand(args: readonly string[]): Promise<void> {
  const cli = cac(`${thisCommand().command} client`)
  const port = '--port <port>'
  const portHelp = 'Port of the daemon (default: BRIDGE_PORT, config.json, 9515)'
  cli
    .command('add <name>', 'Create an MCP client with its own token and print (or write) its configuration')
    .option('--json', 'Print JSON (name, token, createdAt, mcpClientConfig)')
    .option('--for <client>', `Write the configuration file of: ${MCP_CLIENT_KINDS.join(', ')}`)
    .option(...PLUGINS_OPTION)
    .option(...SITES_OPTION)
    .option(...BUILTINS_OPTION)
    .option(...OTHER_AGENT_OPTION)
    .option(
      '--reads <origins>',
      'Only these origins (comma-separated) may it read; results from others are withheld',
    )
    .option(
      '--writes <origins>',
      'Only these origins (comma-separated) may it write to; calls to others are refused',
    )
    .option(port, portHelp)
    .action((name: unknown, flags: ClientFlags) => addClientCommand(String(name), flags))
  cli
    .command(
      'set <name>',
      'Change what an MCP client may use (its token stays); unnamed parts keep their value',
    )
    .option(...PLUGINS_OPTION)
    .option(...SITES_OPTION)
    .option(...BUILTINS_OPTION)
    .option(...OTHER_AGENT_OPTION)
    .option('--json', 'Print JSON (name and scope)')
    .option(port, portHelp)
    .action((name: unknown, flags: ClientFlags) => setClientCommand(String(name), flags))
  cli
    .command('list', 'List the MCP clients (names and creation dates; no tokens)')
    .alias('ls')
    .option('--json', 'Print JSON')
    .action((flags: ClientFlags) => listClientsCommand(flags))
  cli
    .command('show <name>', 'Show one MCP client (token truncated unless --show-secret)')
    .option('--json', 'Print JSON')
    .option('--show-secret', 'Print the full token and the MCP client configuration')
    .option(port, portHelp)
    .action((name: unknown, flags: ClientFlags) => showClientCommand(String(name), flags))
  cli
    .command(
      'approvals <name> <on|off>',
      'Let a client you trust also show its approvals itself (off by default: the side panel only)',
    )
    .option(port, portHelp)
    .action((name: unknown, value: unknown, flags: ClientFlags) =>
      approvalsCommand(String(name), String(value), flags),
    )
  cli
    .command('remove <name>', 'Delete an MCP client: its token stops working at once')
    .alias('rm')
    .option('--confirm', 'Required: really remove it')
    .option(port, portHelp)
    .action((name: unknown, flags: ClientFlags) => removeClientCommand(String(name), flags))
  cli.help()
  try {
    cli.parse(['node', 'bridge client', ...args], { run: false })
    if (!cli.matchedCommand) {
      if (cli.options.help) return
      if (args.length) return fail(`unknown client command "${args[0]}"; see \`bridge client --help\``)
      return listClientsCommand(cli.options)
    }
    await cli.runMatchedCommand()
  } catch (error) {
    fail(errorText(error))
  }
}

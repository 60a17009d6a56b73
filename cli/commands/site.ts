/**
 * `bridge site <list|set>`: sites' own tools (WebMCP). A site is an origin; it is off until turned on.
 * cac has no nested commands, so `bridge` hands everything after `site` to this small program.
 *
 * @example
 *   bridge site list
 *   bridge site set https://todo.example ask
 *   bridge site set https://todo.example add_todo auto
 */
import { cac } from 'cac'
import { errorText, fail } from '../shared/output'
import { listSites, setSite, type SiteFlags } from './site/actions'

/** Runs `bridge site ...`; sets process.exitCode on failure. */
export async function runSiteCommand(args: readonly string[]): Promise<void> {
  const cli = cac('bridge site')
  const port = '--port <port>'
  const portHelp = 'Port of a running daemon (default: BRIDGE_PORT, config.json, 9515)'
  cli
    .command('list', 'List turned-on sites and the tools sites declare in open tabs, with their permissions')
    .alias('ls')
    .option('--json', 'Print JSON')
    .option(port, portHelp)
    .action((flags: SiteFlags) => listSites(flags))
  cli
    .command('set <origin> <toolOrPermission> [permission]', "Set a site's default, or one of its tools")
    .usage(
      'set <origin> off|ask|auto\n  set <origin> <tool> off|ask|auto\n\n' +
        '  <origin> is scheme, host and port: https://todo.example, http://127.0.0.1:8080.\n' +
        '  <tool> is the name the site declared, or the name agents call it by. Setting a tool to ask or\n' +
        '  auto binds what the site declares now: open the site first (the daemon must see the tool).',
    )
    .option(port, portHelp)
    .action((origin: string, second: string, third: string | undefined, flags: SiteFlags) =>
      third === undefined
        ? setSite(String(origin), undefined, String(second), flags)
        : setSite(String(origin), String(second), String(third), flags),
    )
  cli.help()
  try {
    cli.parse(['node', 'bridge site', ...args], { run: false })
    if (!cli.matchedCommand) {
      if (cli.options.help) return
      if (args.length) return fail(`unknown site command "${args[0]}"; see \`bridge site --help\``)
      return listSites(cli.options)
    }
    await cli.runMatchedCommand()
  } catch (error) {
    fail(errorText(error))
  }
}

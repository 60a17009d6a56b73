/**
 * `bridge plugin search|install|remove`: plugin packages in the npm registry, through the user's own
 * npm (its registry, proxy and global prefix). A running daemon is asked to reload afterwards, so the
 * change shows in the side panel and the MCP tool list at once.
 *
 * @example
 *   bridge plugin search notes
 *   bridge plugin install notes          # @bridge-mcp/bridge-plugin-notes, else bridge-plugin-notes
 *   bridge plugin remove notes --confirm
 */
import { existsSync } from 'node:fs'
import { escapedJson, neutralizeText } from '../../../src/protocol/untrustedText'
import { readConfigFile, updateConfigFile } from '../../../src/config/configFile'
import { defaultConfig } from '../../../src/config/schema'
import { OFFICIAL_PLUGIN_SCOPE, searchPlugins } from '../../../src/plugins/npmPackages'
import { installPlugin, removePlugin } from '../../../src/plugins/pluginInstall'
import { fail, say, warn } from '../../shared/output'
import { runningConfigContext, requestReload, runningDaemon, type ConfigContext } from '../config/context'

export interface RegistryFlags {
  port?: unknown
  json?: boolean
  confirm?: boolean
}

export async function runSearch(query: string | undefined, flags: RegistryFlags): Promise<void> {
  const results = await searchPlugins(query, process.env)
  if (flags.json) return say(escapedJson(results, 2))
  if (results.length === 0) {
    say(
      query
        ? `No plugins in the registry match "${neutralizeText(query, 200)}".`
        : 'No plugins in the registry.',
    )
    return
  }
  // Registry text is written by package authors: one line each, no terminal controls.
  const rows = results.map((r) => [
    neutralizeText(r.name, 214),
    neutralizeText(r.version, 40),
    neutralizeText(r.description, 300),
    neutralizeText(r.author, 100),
  ])
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)))
  for (const [name = '', version = '', description, author] of rows)
    say(
      `${name.padEnd(widths[0] ?? 0)}  ${version.padEnd(widths[1] ?? 0)}  ${description || '(no description)'}${author ? ` (${author})` : ''}`,
    )
  say()
  say(
    `${results.length} plugin${results.length === 1 ? '' : 's'}; install one with \`bridge plugin install <name>\``,
  )
}

export async function runInstall(name: string | undefined, flags: RegistryFlags): Promise<void> {
  if (!name)
    return fail(
      `plugin install needs a name: a shorthand (notes: ${OFFICIAL_PLUGIN_SCOPE}/bridge-plugin-notes, else bridge-plugin-notes) or a full package name`,
    )
  const context = await runningConfigContext(flags)
  say(`Looking up ${name} in the npm registry…`)
  const outcome = await installPlugin(name, process.env, (step) => say(step))
  const from = outcome.previousVersion ? ` (was ${outcome.previousVersion})` : ''
  say(`Installed ${outcome.packageName}@${outcome.version}${from}: plugin "${outcome.plugin}".`)
  if (outcome.previousVersion && outcome.previousVersion !== outcome.version)
    say(
      'If you had reviewed the previous version, its tools stay off until you review this one (side panel).',
    )
  await reloadDaemon(context)
}

export async function runRemove(name: string | undefined, flags: RegistryFlags): Promise<void> {
  if (!name)
    return fail('plugin remove needs the name of an installed plugin (`bridge plugin list` shows them)')
  const context = await runningConfigContext(flags)
  const { paths } = context
  if (!flags.confirm) {
    return fail(
      `plugin remove uninstalls "${name}" and removes it from localPlugins in ${paths.configFile}. ` +
        `Nothing was changed; run \`bridge plugin remove ${name} --confirm\` to do it.`,
    )
  }
  const config = existsSync(paths.configFile) ? readConfigFile(paths.configFile) : defaultConfig()
  const outcome = await removePlugin(name, {
    env: process.env,
    configDir: paths.dir,
    config,
    updateConfig: (mutate) => updateConfigFile(paths.configFile, mutate),
  })
  for (const pkg of outcome.uninstalled) say(`Uninstalled ${pkg}.`)
  for (const entry of outcome.localRemoved)
    say(`Removed ${entry} from localPlugins (the folder itself is kept).`)
  await reloadDaemon(context)
}

async function reloadDaemon(context: ConfigContext): Promise<void> {
  const daemon = await runningDaemon(context)
  if (!daemon || context.secret === null) {
    say('No daemon is running; it picks the change up when it starts.')
    return
  }
  const reloaded = await requestReload(context.port, context.secret)
  if (reloaded.ok) say('The running daemon reloaded its plugins.')
  else
    warn(`The running daemon did not reload (${reloaded.message}); run \`bridge stop\` and \`bridge start\`.`)
}

/**
 * `bridge site list` and `bridge site set`. Settings go to config.json under `sites`, written
 * atomically with the module the daemon uses; a running daemon is then asked to re-read it. What a
 * site declared (names, titles, reasons) is the site's text: neutralized before it is printed.
 */
import { existsSync } from 'node:fs'
import { ensurePrivateDir } from '../../../src/config/atomicWrite'
import { readConfigFile, updateConfigFile } from '../../../src/config/configFile'
import {
  isSiteEnabled,
  normalizeOrigin,
  withSitePermission,
  withSiteToolPermission,
} from '../../../src/config/sitePermissions'
import type { Permission, SiteState } from '../../../src/protocol'
import { neutralizeText } from '../../../src/protocol/untrustedText'
import { fail, say } from '../../shared/output'
import { runningConfigContext, rereadByDaemon, runningDaemon } from '../config/context'

export interface SiteFlags {
  port?: unknown
  json?: boolean
}

const PERMISSIONS: readonly string[] = ['off', 'ask', 'auto']

function printSite(site: SiteState): void {
  say(`${site.origin}  ${site.permission}${site.enabled ? '' : ' (off: bridge does not look at its pages)'}`)
  for (const tool of site.tools) {
    const notes = [
      tool.changed ? 'changed since it was set: the site default applies' : '',
      tool.unavailable ? `unavailable: ${neutralizeText(tool.unavailable, 300)}` : '',
    ].filter(Boolean)
    say(
      `  ${tool.fullName}  ${tool.permission}  (declared as ${neutralizeText(JSON.stringify(tool.name), 140)})${notes.length ? `  ${notes.join('; ')}` : ''}`,
    )
  }
}

export async function listSites(flags: SiteFlags): Promise<void> {
  const context = await runningConfigContext(flags)
  const daemon = await runningDaemon(context)
  if (daemon) {
    if (flags.json) return say(JSON.stringify(daemon.sites, null, 2))
    if (daemon.sites.length === 0) return say('no site is turned on (bridge site set <origin> ask)')
    for (const site of daemon.sites) printSite(site)
    return
  }
  const configured = existsSync(context.paths.configFile)
    ? readConfigFile(context.paths.configFile).sites
    : undefined
  const sites = Object.entries(configured ?? {})
  if (flags.json) return say(JSON.stringify(configured ?? {}, null, 2))
  if (sites.length === 0) return say('no site is turned on (bridge site set <origin> ask)')
  say('(the daemon is not running: settings only; the tools sites declare show while it runs)')
  for (const [origin, entry] of sites) {
    say(`${origin}  ${entry.permission ?? 'off'}${isSiteEnabled(configured, origin) ? '' : ' (off)'}`)
    for (const [tool, setting] of Object.entries(entry.tools ?? {}))
      say(`  ${neutralizeText(JSON.stringify(tool), 140)}  ${setting.permission}`)
  }
}

export async function setSite(
  given: string,
  tool: string | undefined,
  value: string,
  flags: SiteFlags,
): Promise<void> {
  const origin = normalizeOrigin(given)
  if (origin === undefined || origin !== given.replace(/\/$/, ''))
    return fail(
      `"${neutralizeText(given, 200)}" is not an origin: give scheme, host and port only, e.g. https://todo.example`,
    )
  if (!PERMISSIONS.includes(value))
    return fail(`permission must be off, ask or auto (got "${neutralizeText(value, 50)}")`)
  const permission = value as Permission
  const context = await runningConfigContext(flags)
  const daemon = await runningDaemon(context)
  let declaredName: string | undefined
  let hash: string | undefined
  if (tool !== undefined) {
    const seen = daemon?.sites
      .find((s) => s.origin === origin)
      ?.tools.find((t) => t.name === tool || t.fullName === tool)
    declaredName = seen?.name ?? tool
    hash = seen?.hash
    if (permission !== 'off' && !seen)
      return fail(
        daemon
          ? `${origin} declares no tool "${neutralizeText(tool, 128)}" in an open tab: turn the site on, open it in the browser, then try again (bridge site list shows what it declares)`
          : `the daemon is not running: a tool can be set to ${permission} only while bridge sees what the site declares (start bridge and open the site)`,
      )
  }
  ensurePrivateDir(context.paths.dir)
  const { written } = updateConfigFile(context.paths.configFile, (config) => ({
    ...config,
    sites:
      declaredName === undefined
        ? withSitePermission(config.sites, origin, permission)
        : withSiteToolPermission(config.sites, origin, declaredName, permission, hash),
  }))
  const what =
    declaredName === undefined ? origin : `${origin} ${neutralizeText(JSON.stringify(declaredName), 140)}`
  if (!written) return say(`unchanged: ${what} was already ${permission}`)
  say(`${what} = ${permission} (written to ${context.paths.configFile})`)
  await rereadByDaemon(context, daemon)
}

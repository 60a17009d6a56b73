/**
 * `bridge update`: compares this CLI's version with the latest one published in the npm registry
 * (the user's npm configuration decides which registry) and installs the newer one globally. Only a
 * package that identifies itself as this project (`"bridge": { "role": "cli" }` in its package.json,
 * as the registry reports it, and again in the tarball itself, with no program but bridge's own) is
 * installed, from the very tarball checked (src/plugins/cliPackage.ts); anything else published under
 * the name is reported and left alone. A running daemon keeps the code it started with until it is
 * restarted.
 */
import type { CAC } from 'cac'
import { installCliPackage, notThisProject } from '../../src/plugins/cliPackage'
import { compareVersions, latestVersion, publishedManifest } from '../../src/plugins/npmPackages'
import { BRIDGE_PACKAGE_NAME, BRIDGE_VERSION } from '../../src/protocol/constants'
import { neutralizeText } from '../../src/protocol/untrustedText'
import { runningConfigContext, runningDaemon } from './config/context'
import { fail, say } from '../shared/output'

export function registerUpdate(cli: CAC): void {
  cli
    .command('update', 'Install the latest published bridge (restart the daemon afterwards)')
    .action((flags: { port?: unknown }) => update(flags))
}

async function update(flags: { port?: unknown }): Promise<void> {
  say(`Checking the npm registry for a newer ${BRIDGE_PACKAGE_NAME} (this is ${BRIDGE_VERSION})…`)
  const latest = await latestVersion(BRIDGE_PACKAGE_NAME, process.env)
  if (latest === undefined)
    return fail(
      `${BRIDGE_PACKAGE_NAME} is not published in the npm registry this machine uses (\`npm config get registry\`)`,
    )
  if (compareVersions(latest, BRIDGE_VERSION) <= 0) {
    say(`${BRIDGE_PACKAGE_NAME} ${BRIDGE_VERSION} is the latest version.`)
    return
  }
  const stranger = notThisProject(await publishedManifest(BRIDGE_PACKAGE_NAME, latest, process.env))
  if (stranger)
    return fail(
      `${BRIDGE_PACKAGE_NAME}@${neutralizeText(latest, 40)} in the npm registry is not this project: ${stranger}. Nothing was installed; check \`npm config get registry\``,
    )
  say(`Installing ${BRIDGE_PACKAGE_NAME} ${latest}…`)
  // This package is the CLI itself: its `bridge` program is the one thing that must be linked.
  await installCliPackage(BRIDGE_PACKAGE_NAME, latest, process.env)
  say(`Installed ${BRIDGE_PACKAGE_NAME} ${latest} (was ${BRIDGE_VERSION}).`)
  const daemon = await runningDaemon(await runningConfigContext(flags)).catch(() => null)
  if (daemon)
    say(
      `The running daemon is still ${daemon.version}: restart it with \`bridge stop\` and \`bridge start\` to use ${latest}.`,
    )
  else say('`bridge start` now runs the new version.')
}

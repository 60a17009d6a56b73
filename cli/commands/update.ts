/**
 * `bridge update`: compares this CLI's version with the latest one published in the npm registry
 * (the user's npm configuration decides which registry) and installs the newer one globally. A running
 * daemon keeps the code it started with until it is restarted.
 */
import type { CAC } from 'cac'
import { compareVersions, installPackage, latestVersion } from '../../src/plugins/npmPackages'
import { BRIDGE_PACKAGE_NAME, BRIDGE_VERSION } from '../../src/protocol/constants'
import { configContext, runningDaemon } from './config/context'
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
  say(`Installing ${BRIDGE_PACKAGE_NAME} ${latest}…`)
  await installPackage(BRIDGE_PACKAGE_NAME, latest, process.env)
  say(`Installed ${BRIDGE_PACKAGE_NAME} ${latest} (was ${BRIDGE_VERSION}).`)
  const daemon = await runningDaemon(configContext(flags)).catch(() => null)
  if (daemon)
    say(
      `The running daemon is still ${daemon.version}: restart it with \`bridge stop\` and \`bridge start\` to use ${latest}.`,
    )
  else say('`bridge start` now runs the new version.')
}

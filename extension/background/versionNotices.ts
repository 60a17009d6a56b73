/**
 * What the side panel says when the daemon and this running extension are of different versions, in
 * one sentence with the one fix, chosen by which side is newer.
 */
/** One sentence and the one fix (the side panel's ConnectionView.versionNotice). */
export interface VersionNotice {
  message: string
  fix: 'reloadExtension' | 'restartDaemon'
}

/**
 * What to say when the daemon and this running extension differ in version. After `bridge update` the
 * daemon is newer and the extension's files on disk are too, but Chrome runs the old code until the
 * extension is reloaded; an extension newer than its daemon means an old daemon still runs.
 */
export function versionNotice(daemon: string, extension: string): VersionNotice | undefined {
  const order = compareVersions(daemon, extension)
  if (order === 0) return undefined
  if (order > 0)
    return {
      fix: 'reloadExtension',
      message: `The daemon was updated to ${daemon} but this extension still runs ${extension}: reload the extension so it runs ${daemon}.`,
    }
  return {
    fix: 'restartDaemon',
    message: `This extension is ${extension} but the daemon that runs is an older ${daemon}: restart the daemon from the updated bridge with \`bridge stop\` and then \`bridge start\`.`,
  }
}

/**
 * The daemon speaks another protocol version, so the extension cannot talk to it at all: after
 * `bridge update` the daemon is newer and reloading the extension runs the installed files; a daemon
 * older than the extension is restarted from the updated bridge.
 */
export function protocolNotice(
  daemon: { protocol: number; version: string },
  extension: { protocol: number; version: string },
): { message: string; fix?: 'reloadExtension' } {
  if (daemon.protocol > extension.protocol)
    return {
      fix: 'reloadExtension',
      message: `The daemon was updated to ${daemon.version} (protocol ${daemon.protocol}) but this extension still runs ${extension.version} (protocol ${extension.protocol}): reload the extension so it runs ${daemon.version}.`,
    }
  return {
    message: `This extension is ${extension.version} (protocol ${extension.protocol}) but the daemon that runs is an older ${daemon.version} (protocol ${daemon.protocol}): restart the daemon from the updated bridge with \`bridge stop\` and then \`bridge start\`.`,
  }
}

/** Numeric comparison of dotted versions (a pre-release sorts before its release). */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => {
    const [core = '', pre] = v.split('-', 2)
    return { nums: core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre }
  }
  const x = parts(a)
  const y = parts(b)
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0)
    if (d !== 0) return Math.sign(d)
  }
  if (x.pre === y.pre) return 0
  if (x.pre === undefined) return 1
  if (y.pre === undefined) return -1
  return x.pre < y.pre ? -1 : 1
}

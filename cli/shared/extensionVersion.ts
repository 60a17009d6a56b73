/**
 * The daemon and the extension connected to it run different versions: after \`bridge update\` the
 * daemon and the extension's files are new, but Chrome runs the extension's old code until it is
 * reloaded; an extension newer than the daemon means an old daemon still runs. Said the same way by
 * \`bridge doctor\` and \`bridge status\` (the side panel says it from the extension's side).
 */
import { neutralizeText } from '../../src/protocol/untrustedText'

export function extensionVersionMismatch(daemon: string, extension: string): { text: string; fix: string } {
  // The extension names its own version: shown as text, never as terminal controls.
  const shown = neutralizeText(extension, 64)
  return newer(daemon, extension)
    ? {
        text: `the extension in the browser still runs ${shown}, the daemon is ${daemon}`,
        fix: 'reload the extension: its Reload extension button in the side panel, or Reload in chrome://extensions',
      }
    : {
        text: `the extension in the browser is ${shown}, newer than the daemon that runs (${daemon})`,
        fix: 'restart the daemon from the updated bridge: `bridge stop`, then `bridge start`',
      }
}

/** Whether dotted version \`a\` is above \`b\` (numbers compared as numbers). */
function newer(a: string, b: string): boolean {
  const x = a.split('-')[0]?.split('.').map(Number) ?? []
  const y = b.split('-')[0]?.split('.').map(Number) ?? []
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] || 0) - (y[i] || 0)
    if (d !== 0) return d > 0
  }
  return a.includes('-') ? false : b.includes('-')
}

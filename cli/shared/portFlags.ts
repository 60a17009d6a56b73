/**
 * The text of every port flag, checked by the one port parser (src/config/port.ts) before cac reads
 * the arguments: cac's parser turns any number-like word into a number (`--port 0x50` is 80,
 * `--port 1e3` is 1000, `--port ""` is 0), so a command would never see what was typed. `--port` is
 * the daemon's port (1-65535), except for a command that listens on it itself (`bridge start`: 0
 * picks a free port); `--site-port` is where `bridge demo` serves its site (0 picks a free port too).
 *
 * @example
 *   portFlagsProblem(['status', '--port', '1e3']) // 'invalid port "1e3" (expected 1-65535)'
 *   portFlagsProblem(['start', '--port', '0'], { start: ['--port'] }) // undefined
 */
import { checkPort } from '../../src/config/port'

const PORT_FLAGS = ['--port', '--site-port']

/**
 * Why a port flag in `argv` is not a port (the first one), or undefined when every one is.
 * `listening`: per command, the port flags it listens on itself.
 */
export function portFlagsProblem(
  argv: readonly string[],
  listening: Readonly<Record<string, readonly string[]>> = {},
): string | undefined {
  const words = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv
  const flags: { flag: string; value: string }[] = []
  let command: string | undefined
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    const [flag, inline] = word.startsWith('--') ? splitFlag(word) : [word, undefined]
    if (!PORT_FLAGS.includes(flag)) {
      if (command === undefined && !word.startsWith('-')) command = word
      continue
    }
    const value = inline ?? words[i + 1]
    if (inline === undefined) i++
    // A flag without a value is left to cac, which says the value is missing.
    if (value !== undefined) flags.push({ flag, value })
  }
  const listens = command !== undefined && Object.hasOwn(listening, command) ? listening[command] : []
  for (const { flag, value } of flags) {
    const checked = checkPort(value, { listen: listens?.includes(flag) ?? false })
    if (!checked.ok) return flag === '--port' ? checked.message : `${flag}: ${checked.message}`
  }
  return undefined
}

function splitFlag(word: string): [string, string | undefined] {
  const at = word.indexOf('=')
  return at < 0 ? [word, undefined] : [word.slice(0, at), word.slice(at + 1)]
}

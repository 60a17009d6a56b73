/**
 * The CLI's command groups (`bridge plugin|client|site|workflow|config ...`) are small cac programs of
 * their own, since cac has no nested commands: `bridge` hands each the words after its name. A global
 * `--port <n>` (or `--port=<n>`) given before the group's name is moved after them, so the group's
 * own `--port` option reads it; a `--port` among the group's words wins over the global one.
 *
 * @example
 *   commandGroupArgs(['--port', '9600', 'config', 'show'], ['config'])
 *   // { group: 'config', args: ['show', '--port', '9600'] }
 */

export interface GroupArgs<G extends string> {
  group: G
  /** The words after the group's name, the global `--port` last when the words give none. */
  args: string[]
}

const isPortFlag = (word: string) => word === '--port' || word.startsWith('--port=')

/** When `argv` (the words after `bridge`) runs one of `groups`: which, and the words for its program. */
export function commandGroupArgs<G extends string>(
  argv: readonly string[],
  groups: readonly G[],
): GroupArgs<G> | undefined {
  const isGroup = (word: string | undefined): word is G => groups.includes(word as G)
  const first = argv[0]
  if (isGroup(first)) return { group: first, args: argv.slice(1) }
  let globalPort: string[]
  let rest: readonly string[]
  if (first === '--port' && argv[1] !== undefined) {
    globalPort = ['--port', argv[1]]
    rest = argv.slice(2)
  } else if (first?.startsWith('--port=')) {
    globalPort = [first]
    rest = argv.slice(1)
  } else return undefined
  const group = rest[0]
  if (!isGroup(group)) return undefined
  const words = rest.slice(1)
  return { group, args: words.some(isPortFlag) ? words : [...words, ...globalPort] }
}

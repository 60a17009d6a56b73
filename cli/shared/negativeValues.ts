/**
 * `--lines -3`: an option followed by a negative number gives the number to the option (as
 * `--lines=-3`), so the command's own check says what is wrong with the value instead of the parser
 * taking `-3` for an unknown flag. No bridge command has a negative positional argument.
 *
 * @example
 *   negativeValuesJoined(['logs', '--lines', '-3']) // ['logs', '--lines=-3']
 */
const NEGATIVE_NUMBER = /^-\d+(\.\d+)?$/

export function negativeValuesJoined(args: readonly string[]): string[] {
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const next = args[i + 1]
    if (/^--[a-z][a-z-]*$/.test(arg) && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      joined.push(`${arg}=${next}`)
      i++
    } else joined.push(arg)
  }
  return joined
}

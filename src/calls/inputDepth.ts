/**
 * How deep tool arguments nest, measured without recursion: a value nested thousands of levels deep
 * (a few kilobytes of `[[[[...]]]]`) must not exhaust the stack of the validator or anything after
 * it. Checked before schema validation.
 */
import { MAX_INPUT_DEPTH } from '../protocol/constants'

/**
 * The first depth past `max` that `value` reaches, or null when it stays within. A scalar is depth 0,
 * `{}` and `[]` are depth 1, `{ a: [1] }` is depth 2.
 *
 * @example
 *   tooDeep({ a: { b: 1 } }, 1) // 2
 *   tooDeep({ a: { b: 1 } }, 2) // null
 */
export function tooDeep(value: unknown, max = MAX_INPUT_DEPTH): number | null {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    const here = depth + 1
    if (here > max) return here
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, here])
  }
  return null
}

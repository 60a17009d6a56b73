/** One line of `bridge doctor`: pass ✓, warning ! (bridge works, something is off) or error ✗ (fatal). */
import { neutralizeText } from '../../../src/protocol/untrustedText'
export type Mark = 'pass' | 'warn' | 'fail'

export interface CheckResult {
  mark: Mark
  text: string
  /** What to do about a warning or an error. */
  hint?: string
}

export const pass = (text: string): CheckResult => ({ mark: 'pass', text })
export const warnOf = (text: string, hint?: string): CheckResult => ({ mark: 'warn', text, hint })
export const failOf = (text: string, hint?: string): CheckResult => ({ mark: 'fail', text, hint })

const SYMBOL: Record<Mark, string> = { pass: '✓', warn: '!', fail: '✗' }

export function formatCheck(result: CheckResult): string[] {
  // Check texts quote plugin builds, registry answers and files: one line each, no terminal controls.
  const lines = [`${SYMBOL[result.mark]} ${neutralizeText(result.text)}`]
  if (result.hint) lines.push(`    ${neutralizeText(result.hint)}`)
  return lines
}

/**
 * Terminal output of the `bridge` CLI: plain lines on stdout, problems on stderr. Every line passes
 * the same redaction as the daemon's log, except where a command prints the secret on purpose, and no
 * terminal control character (an escape sequence from a page, a plugin or an agent) is ever written:
 * it is shown as a marker (`⟨U+001B⟩`). Commands also neutralize each untrusted field they print
 * (src/protocol/untrustedText), so its newlines cannot start a line of their own. A command quoted in
 * backticks (`` `bridge start` ``) is printed the way this program is reached from the person's shell
 * (`bridge-mcp start` when PATH's `bridge` is another program: cli/shared/selfCommand.ts).
 */
import { redact } from '../../src/log'
import { withoutTerminalControls } from '../../src/protocol/untrustedText'
import { withRunnableCommands } from './selfCommand'

export function say(text = ''): void {
  process.stdout.write(`${withRunnableCommands(withoutTerminalControls(redact(text)))}\n`)
}

/** Prints text that is meant to contain the secret (setup instructions, --show-secret). */
export function sayWithSecret(text: string): void {
  process.stdout.write(`${text}\n`)
}

export function warn(text: string): void {
  process.stderr.write(`${withRunnableCommands(withoutTerminalControls(redact(text)))}\n`)
}

/** Prints the problem and sets exit code 1. */
export function fail(text: string): void {
  failAs('bridge', text)
}

/** Prints the problem as `program` says it (`bridge-plugin: ...`) and sets exit code 1. */
export function failAs(program: 'bridge' | 'bridge-plugin', text: string): void {
  process.stderr.write(`${program}: ${withRunnableCommands(withoutTerminalControls(redact(text)))}\n`)
  process.exitCode = 1
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

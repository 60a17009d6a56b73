/**
 * Terminal output of the `bridge` CLI: plain lines on stdout, problems on stderr. Every line passes
 * the same redaction as the daemon's log, except where a command prints the secret on purpose.
 */
import { redact } from '../../src/log'

export function say(text = ''): void {
  process.stdout.write(`${redact(text)}\n`)
}

/** Prints text that is meant to contain the secret (setup instructions, --show-secret). */
export function sayWithSecret(text: string): void {
  process.stdout.write(`${text}\n`)
}

export function warn(text: string): void {
  process.stderr.write(`${redact(text)}\n`)
}

/** Prints the problem and sets exit code 1. */
export function fail(text: string): void {
  process.stderr.write(`bridge: ${redact(text)}\n`)
  process.exitCode = 1
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

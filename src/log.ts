/**
 * The daemon's one consola instance. Every module takes a tagged child (`log.withTag('http')`), so each
 * line carries its concern (`[http]`, `[plugin:notes]`) and `bridge logs --plugin` can filter on it.
 * Lines go to the terminal and, once `attachLogFile` is called, are appended to `<config>/server.log`
 * (mode 0600). Anything that looks like a secret is redacted before it is written anywhere.
 */
// consola's core only: its default entry also loads the terminal reporters and the prompt (readline,
// tty), ~3 MB of memory the daemon never uses; the prompt is loaded on demand (`log.prompt`, CLI only).
import {
  createConsola,
  LogLevels,
  type ConsolaInstance,
  type ConsolaOptions,
  type LogObject,
  type PromptOptions,
} from 'consola/core'
import { closeSync, fchmodSync, fstatSync, renameSync, writeSync } from 'node:fs'
import { format } from 'node:util'
import { openNoFollow } from './config/privateFiles'

export type LogLevelName = 'debug' | 'info' | 'warn' | 'error' | 'silent'
const LEVELS: Record<LogLevelName, number> = {
  debug: LogLevels.debug,
  info: LogLevels.info,
  warn: LogLevels.warn,
  error: LogLevels.error,
  silent: LogLevels.silent,
}

/** Reads BRIDGE_LOG_LEVEL; anything unknown falls back to `info`. */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevelName {
  const value = env.BRIDGE_LOG_LEVEL?.toLowerCase()
  return value && value in LEVELS ? (value as LogLevelName) : 'info'
}

const knownSecrets = new Set<string>()

/** Registers a secret so that it is replaced by `[redacted]` in every log line. */
export function registerSecret(secret: string): void {
  if (secret.length >= 16) knownSecrets.add(secret)
}

/** Removes known secrets, bearer tokens and 64-hex strings from a line. */
export function redact(text: string): string {
  let out = text
  for (const secret of knownSecrets) out = out.split(secret).join('[redacted]')
  return out.replace(/(bearer\s+)[^\s"',]+/gi, '$1[redacted]').replace(/\b[0-9a-f]{64}\b/gi, '[redacted]')
}

function render(obj: LogObject): string {
  const message = redact(format(...(obj.args as unknown[])))
  return obj.tag ? `[${obj.tag}] ${message}` : message
}

/** server.log rolls over to server.log.1 past this size, so it cannot fill the disk. */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024

let file: { fd: number; path: string; size: number; rotateBytes: number } | undefined

function openLog(path: string): number {
  // Never through a symbolic link: a planted link would make the daemon append to another file.
  const fd = openNoFollow(path, 'a')
  fchmodSync(fd, 0o600)
  return fd
}

function writeToFile(obj: LogObject): void {
  if (file === undefined) return
  const line = `${obj.date.toISOString()} ${obj.type.toUpperCase().padEnd(5)} ${render(obj)}\n`
  try {
    file.size += writeSync(file.fd, line)
    if (file.size > file.rotateBytes) {
      closeSync(file.fd)
      renameSync(file.path, `${file.path}.1`)
      file.fd = openLog(file.path)
      file.size = 0
    }
  } catch {
    // A full disk must not take the daemon down; the terminal still gets the line.
  }
}

// A closed terminal (the shell went away, `bridge status | head` stopped reading) must not end the
// process with an unhandled EPIPE: server.log still gets every line.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined)

function writeToTerminal(obj: LogObject): void {
  const stream = obj.level <= LogLevels.warn ? process.stderr : process.stdout
  stream.write(`${render(obj)}\n`)
}

/** The daemon-wide logger. Use `log.withTag('<concern>')` in modules. */
export const log: ConsolaInstance = createConsola({
  level: LEVELS[logLevelFromEnv()],
  throttle: 0,
  // File first: whoever watches the terminal for a line can then find it in server.log too.
  reporters: [{ log: (obj) => (writeToFile(obj), writeToTerminal(obj)) }],
  prompt: (async (message: string, options?: PromptOptions) =>
    (await import('consola')).consola.prompt(message, options)) as ConsolaOptions['prompt'],
})

/**
 * Starts appending to `path` (created 0600; the mode is enforced on an existing file too). Past
 * `rotateBytes` the file moves to `<path>.1` (replacing the previous one) and a new one starts.
 */
export function attachLogFile(path: string, rotateBytes: number = LOG_ROTATE_BYTES): void {
  detachLogFile()
  const fd = openLog(path)
  file = { fd, path, size: fstatSync(fd).size, rotateBytes }
}

export function detachLogFile(): void {
  if (file === undefined) return
  closeSync(file.fd)
  file = undefined
}

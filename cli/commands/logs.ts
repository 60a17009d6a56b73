/**
 * `bridge logs [--lines 50] [-f|--follow] [--plugin <name>]`: the end of `<config>/server.log`
 * (after server.log.1 when the file has just rolled over). `--plugin` keeps the lines the daemon tagged
 * `[plugin:<name>]`; `--follow` keeps printing new lines, across a rollover, until Ctrl-C. Lines are
 * printed neutralized (no escape or control characters), and server.log is never read through a link.
 */
import type { CAC } from 'cac'
import { closeSync, fstatSync, readSync, statSync } from 'node:fs'
import { bridgePaths, configDirFromEnv } from '../../src/config/paths'
import { existsNoFollow, openNoFollow, readFileNoFollow } from '../../src/config/privateFiles'
import { PLUGIN_NAME_PATTERN } from '../../src/protocol/constants'
import { neutralizeText } from '../../src/protocol/untrustedText'
import { fail, say } from '../shared/output'
import { listPlugins } from './plugin/list'

interface LogsFlags {
  lines?: unknown
  follow?: boolean
  plugin?: unknown
}

const POLL_MS = 200

export function registerLogs(cli: CAC): void {
  cli
    .command('logs', 'Print the end of server.log')
    .option('--lines <n>', 'Lines to print', { default: 50 })
    .option('-f, --follow', 'Keep printing new lines until Ctrl-C')
    .option('--plugin <name>', 'Only lines of this plugin ([plugin:<name>])')
    .action((flags: LogsFlags) => logs(flags))
}

async function logs(flags: LogsFlags): Promise<void> {
  const linesText = flagText(flags.lines ?? 50)
  const count = /^\d+$/.test(linesText) ? Number(linesText) : NaN
  if (!Number.isSafeInteger(count) || count < 1)
    return fail(`--lines must be a positive integer (got "${linesText}")`)
  let keep: (line: string) => boolean = () => true
  if (flags.plugin !== undefined) {
    const name = flagText(flags.plugin)
    if (!PLUGIN_NAME_PATTERN.test(name)) return fail(`"${name}" is not a plugin name`)
    keep = (line) => line.includes(`[plugin:${name}]`)
  }
  const { serverLog } = bridgePaths(configDirFromEnv())
  if (!existsNoFollow(serverLog))
    return fail(`no log at ${serverLog} yet (bridge has not run with this config directory)`)

  // Read the current file once, at a known size, so following starts exactly where printing ended.
  const fd = openNoFollow(serverLog, 'r')
  const size = fstatSync(fd).size
  const text = readRange(fd, 0, size)
  const rotated = `${serverLog}.1`
  const earlier = existsNoFollow(rotated) ? readFileNoFollow(rotated) : ''
  const lines = `${earlier}${text}`.split('\n').filter((line) => line !== '' && keep(line))
  if (lines.length === 0 && flags.plugin !== undefined) {
    // Nothing logged under that name: a typo, or a plugin that has not logged yet? Say which.
    const name = flagText(flags.plugin)
    const known = await knownPlugins()
    if (known !== null && !known.includes(name)) {
      closeSync(fd)
      return fail(`there is no plugin "${name}" (plugins: ${known.join(', ') || 'none'})`)
    }
    say(`no lines of plugin "${name}" in ${serverLog} yet`)
  }
  for (const line of lines.slice(-count)) say(printable(line))
  if (!flags.follow) return closeSync(fd)
  await follow(serverLog, fd, size, keep)
}

/** The plugins the running daemon has, else what discovery finds; null when neither can tell. */
async function knownPlugins(): Promise<string[] | null> {
  try {
    return (await listPlugins({})).plugins.map((p) => p.name).sort()
  } catch {
    return null
  }
}

function readRange(fd: number, from: number, to: number): string {
  const buffer = Buffer.alloc(to - from)
  let read = 0
  while (read < buffer.length) {
    const n = readSync(fd, buffer, read, buffer.length - read, from + read)
    if (n === 0) break
    read += n
  }
  return buffer.subarray(0, read).toString('utf8')
}

/** Polls the open file for new bytes; when the daemon rolls it over, drains the old one and reopens. */
function follow(
  path: string,
  firstFd: number,
  start: number,
  keep: (line: string) => boolean,
): Promise<void> {
  let fd = firstFd
  let offset = start
  let partial = ''
  const emit = (chunk: string) => {
    const parts = `${partial}${chunk}`.split('\n')
    partial = parts.pop() ?? ''
    for (const line of parts) if (line !== '' && keep(line)) say(printable(line))
  }
  const drain = () => {
    const size = fstatSync(fd).size
    if (size < offset) offset = 0 // truncated in place
    if (size > offset) {
      emit(readRange(fd, offset, size))
      offset = size
    }
  }
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      drain()
      let current: number | undefined
      try {
        current = statSync(path).ino
      } catch {
        return // between the rename and the new file
      }
      if (current === fstatSync(fd).ino) return
      closeSync(fd)
      fd = openNoFollow(path, 'r')
      offset = 0
      drain()
    }, POLL_MS)
    const stop = () => {
      clearInterval(timer)
      if (partial && keep(partial)) say(printable(partial))
      closeSync(fd)
      resolve()
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}

/**
 * A log line as it may be printed: plugin and page text in it is already neutralized by the daemon,
 * but the file may be older or edited, so escapes and control characters never reach the terminal.
 */
function printable(line: string): string {
  return neutralizeText(line, 20_000)
}

/** A flag value as the user typed it (cac gives numbers for numeric text, arrays for repeats). */
function flagText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : (JSON.stringify(value) ?? '')
}

/**
 * How a person runs this CLI from their shell, so that every command bridge prints works as printed.
 * `bridge` is not always this program: iproute2 ships `/usr/sbin/bridge` on Debian and Ubuntu, and it
 * answers `bridge client add ...` with `Object "client" is unknown`. The package also installs the
 * same program as `bridge-mcp`; when neither name on PATH is this program (a checkout, `npx`), the
 * way to run it is spelled out in full.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { BRIDGE_ALIAS_COMMAND, BRIDGE_PACKAGE_NAME } from '../../src/protocol/constants'

export interface SelfCommand {
  /** What to type for this CLI: `bridge`, `bridge-mcp`, `npx -y @bridge-mcp/bridge` or a full path. */
  command: string
  /** How this program was found: `path` (as `bridge`), `alias`, `npx` or `direct` (neither name). */
  via: 'path' | 'alias' | 'npx' | 'direct'
  /** The `bridge` PATH finds, when it is another program. */
  shadowedBy?: string
  /** The folder this program's `bridge-mcp` is in, when PATH finds it there. */
  aliasDir?: string
}

const BRIDGE = 'bridge'

/** The first executable file named `name` in PATH, as PATH names it, or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue
    const file = join(dir, name)
    try {
      if (!statSync(file).isFile()) continue
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // Not there, or not executable: PATH lookup skips it too.
    }
  }
  return undefined
}

function real(file: string): string | undefined {
  try {
    return realpathSync(file)
  } catch {
    return undefined
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}

/**
 * Works out how this CLI (`self`, the running script) is reached from a shell with `env`'s PATH.
 *
 * @example
 *   selfCommand().command // 'bridge', or 'bridge-mcp' when /usr/sbin/bridge comes first in PATH
 */
export function selfCommand(
  self: string = process.argv[1] ?? '',
  env: NodeJS.ProcessEnv = process.env,
): SelfCommand {
  const me = real(self)
  const path = env.PATH ?? ''
  const onPath = findOnPath(BRIDGE, path)
  const shadowedBy = onPath !== undefined && real(onPath) !== me ? onPath : undefined
  // npx runs the package from its cache with that cache's bin folder first in PATH: the `bridge`
  // found there is gone when npx exits, so the command to give is npx itself.
  if (me !== undefined && /[\\/]_npx[\\/]/.test(me))
    return { command: `npx -y ${BRIDGE_PACKAGE_NAME}`, via: 'npx' }
  if (onPath !== undefined && shadowedBy === undefined) return { command: BRIDGE, via: 'path' }
  const alias = findOnPath(BRIDGE_ALIAS_COMMAND, path)
  if (alias !== undefined && me !== undefined && real(alias) === me)
    return {
      command: BRIDGE_ALIAS_COMMAND,
      via: 'alias',
      aliasDir: alias.slice(0, -BRIDGE_ALIAS_COMMAND.length - 1),
      ...(shadowedBy ? { shadowedBy } : {}),
    }
  const direct = isExecutable(self) ? shellWord(self) : `node ${shellWord(self)}`
  return { command: direct, via: 'direct', ...(shadowedBy ? { shadowedBy } : {}) }
}

let cached: SelfCommand | undefined

/** selfCommand() of this process, worked out once. */
export function thisCommand(): SelfCommand {
  return (cached ??= selfCommand())
}

/**
 * `text` with each command it quotes in backticks (`` `bridge start` ``) written the way this CLI is
 * reached, so it works when pasted: `` `bridge-mcp start` `` when PATH's `bridge` is another program.
 */
export function withRunnableCommands(text: string, self: SelfCommand = thisCommand()): string {
  if (self.command === BRIDGE) return text
  return text.replace(/`bridge(?= )/g, `\`${self.command}`)
}

/**
 * What to tell a person whose `bridge` is not this program, or undefined when it is: the problem and
 * the fix, each a sentence; the commands in them work as printed.
 */
export function shadowAdvice(
  self: SelfCommand = thisCommand(),
): { problem: string; fix: string } | undefined {
  if (self.via === 'path' || self.via === 'npx') return undefined
  const problem = self.shadowedBy
    ? `\`bridge\` on your PATH is ${self.shadowedBy}, another program (iproute2's bridge on Debian and Ubuntu), not bridge.`
    : '`bridge` is not on your PATH.'
  const fix =
    self.via === 'alias'
      ? `Run bridge as \`${self.command}\` (the same program), e.g. \`${self.command} status\`${self.shadowedBy ? `; or put ${self.aliasDir} before ${dirOf(self.shadowedBy)} in PATH` : ''}.`
      : `Run bridge as \`${self.command}\`, e.g. \`${self.command} status\`; or install it with \`npm install -g ${BRIDGE_PACKAGE_NAME}\`, which also provides \`${BRIDGE_ALIAS_COMMAND}\`.`
  return { problem, fix }
}

/** shadowAdvice() as one line, or undefined when `bridge` is this program. */
export function shadowNotice(self: SelfCommand = thisCommand()): string | undefined {
  const advice = shadowAdvice(self)
  return advice && `${advice.problem} ${advice.fix}`
}

function dirOf(file: string): string {
  const at = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'))
  return at > 0 ? file.slice(0, at) : file
}

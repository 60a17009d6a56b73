/**
 * The MCP clients bridge is tested with, run as their users run them: Claude Code (`claude mcp
 * list`) and the MCP Inspector's CLI, installed pinned by scripts/testedClients.mjs. Each runs with a
 * home folder of its own in a temp dir and an environment reduced to PATH, so nothing reads or writes
 * the user's real configuration, and no API key or proxy setting of the machine reaches it.
 *
 * @example
 *   const clients = await testedClients()
 *   const home = isolatedHome()
 *   const run = await runTestedClient(process.execPath, [clients.claude, 'mcp', 'list'], home)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from './daemon'
import { runCommand, runSetUpScript, type CommandResult } from './runCommand'

export interface TestedClients {
  /** Claude Code's launcher (run with node): it runs the native binary of the platform package. */
  claude: string
  /** The MCP Inspector's launcher (run with Node 22: the Inspector needs >= 22.19). */
  inspector: string
}

let installed: Promise<TestedClients> | undefined

/** The pinned clients, installed through npm once per machine (a few hundred MB the first time). */
export function testedClients(): Promise<TestedClients> {
  installed ??= runSetUpScript(ROOT, 'scripts/testedClients.mjs', 600_000).then(
    (stdout) => JSON.parse(stdout) as TestedClients,
  )
  return installed
}

export interface IsolatedHome {
  /** The HOME the client sees (its config files land here). */
  dir: string
  /** A working directory inside it, so no project file of the repository is read. */
  cwd: string
  remove(): void
}

export function isolatedHome(): IsolatedHome {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-client-home-'))
  const cwd = join(dir, 'work')
  mkdirSync(cwd)
  return { dir, cwd, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Only PATH from the machine; HOME and the XDG folders in the isolated home; no telemetry. */
export function isolatedEnv(home: IsolatedHome): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home.dir,
    XDG_CONFIG_HOME: join(home.dir, '.config'),
    XDG_DATA_HOME: join(home.dir, '.local', 'share'),
    XDG_CACHE_HOME: join(home.dir, '.cache'),
    TMPDIR: tmpdir(),
    NO_COLOR: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  }
}

/** Runs one client command to its end (killed after `timeoutMs`). */
export function runTestedClient(
  program: string,
  args: string[],
  home: IsolatedHome,
  timeoutMs = 60_000,
): Promise<CommandResult> {
  return runCommand(program, args, isolatedEnv(home), timeoutMs, home.cwd)
}

/** Runs the built `bridge` CLI (dist/cli/bridge.js) as a user would, with a temp config dir. */
import { CLI_JS, ROOT, daemonEnv, lostBuild, waitForBuild } from '../../helpers/daemon'
import { runCommand } from '../../helpers/runCommand'

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

export async function runCli(
  args: string[],
  configDir: string,
  env: Record<string, string | undefined> = {},
  timeoutMs = 20_000,
): Promise<CliResult> {
  for (let attempt = 1; ; attempt++) {
    await waitForBuild(CLI_JS)
    const result = await runOnce(args, configDir, env, timeoutMs)
    // A concurrent `npm run build` may have emptied dist/ under us: run again once it is back.
    if (attempt < 3 && lostBuild(result.stderr)) continue
    return result
  }
}

function runOnce(
  args: string[],
  configDir: string,
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<CliResult> {
  return runCommand(
    process.execPath,
    [CLI_JS, ...args],
    daemonEnv(configDir, 'node', { PORT: undefined, ...env }),
    timeoutMs,
    ROOT,
  )
}

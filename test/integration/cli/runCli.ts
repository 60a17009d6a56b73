/** Runs the built `bridge` CLI (dist/cli/bridge.js) as a user would, with a temp config dir. */
import { spawn } from 'node:child_process'
import { CLI_JS, ROOT, daemonEnv, waitForBuild } from '../../helpers/daemon'

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
  await waitForBuild(CLI_JS)
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI_JS, ...args], {
      cwd: ROOT,
      env: daemonEnv(configDir, 'node', { PORT: undefined, ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
    proc.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

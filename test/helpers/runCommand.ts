import { spawn } from 'node:child_process'

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
  /** stdout and stderr as they came, interleaved. */
  out: string
}

/**
 * Runs a program to its end with `env` (the whole environment), collecting what it prints; killed
 * (SIGKILL) after `timeoutMs` when one is given.
 */
export function runCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs?: number,
  cwd?: string,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const proc = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let out = ''
    proc.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
      out += chunk.toString('utf8')
    })
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
      out += chunk.toString('utf8')
    })
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
    proc.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, out })
    })
  })
}

import { spawn } from 'node:child_process'
import { join } from 'node:path'

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
  /** stdout and stderr as they came, interleaved. */
  out: string
}

/**
 * Runs a program to its end with `env` (the whole environment), collecting what it prints; killed
 * (SIGKILL) after `timeoutMs` when one is given. Rejects when the program cannot be started.
 */
export function runCommand(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs?: number,
  cwd?: string,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
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
    proc.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    proc.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, out })
    })
  })
}

/** Runs one of the repository's set-up scripts with this Node and answers what it printed. */
export async function runSetUpScript(root: string, script: string, timeoutMs: number): Promise<string> {
  const run = await runCommand(process.execPath, [join(root, script)], process.env, timeoutMs, root)
  if (run.code !== 0) throw new Error(`${script} failed (exit ${run.code}):\n${run.stderr.slice(-2_000)}`)
  return run.stdout
}

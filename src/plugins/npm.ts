/**
 * Running the user's own `npm` (never through a shell): their registry, proxy, tokens and global
 * prefix apply, exactly as on their command line. Every npm use of bridge goes through here.
 */
import { execFile } from 'node:child_process'
import { BridgeError, BridgeErrorCode } from '../errors'

export interface NpmRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs npm with `args` (never through a shell). Resolves with the exit code; rejects only when npm cannot start. */
export function runNpm(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<NpmRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      args,
      {
        env: {
          ...env,
          npm_config_update_notifier: 'false',
          npm_config_fund: 'false',
          npm_config_audit: 'false',
        },
        timeout: timeoutMs,
        maxBuffer: 32 * 1024 * 1024,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
        if (error && code === null) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT')
            reject(
              new BridgeError(
                BridgeErrorCode.npmFailed,
                'npm was not found on PATH; install Node.js with npm',
              ),
            )
          else if (error.killed)
            reject(
              new BridgeError(
                BridgeErrorCode.npmFailed,
                `npm ${args[0]} did not finish within ${timeoutMs / 1000} s`,
              ),
            )
          else reject(new BridgeError(BridgeErrorCode.npmFailed, `npm ${args[0]} failed: ${error.message}`))
          return
        }
        resolve({ code: code ?? 1, stdout, stderr })
      },
    )
  })
}

/** The `npm error` lines of a failed run (npm already redacts tokens), or its last line. */
export function npmProblem(run: NpmRun): string {
  const lines = run.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('npm error') && !/A complete log of this run/.test(l))
    .map((l) => l.replace(/^npm error\s*/, ''))
    .filter((l) => l !== '')
  const text =
    lines.length > 0
      ? lines.slice(0, 4).join('; ')
      : run.stderr.trim().split('\n').pop() || `exit code ${run.code}`
  return text.length > 500 ? `${text.slice(0, 500)}…` : text
}

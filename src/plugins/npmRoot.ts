/**
 * The npm global package folder, asked from npm itself (`npm root -g`) so that every way of setting
 * the prefix (NPM_CONFIG_PREFIX, .npmrc, nvm) is respected. Spawning npm costs a few hundred ms, so
 * the answer is kept for a while per environment (PATH and npm settings); reloads stay fast.
 */
import { execFile } from 'node:child_process'

const NPM_TIMEOUT_MS = 15_000
export const NPM_ROOT_CACHE_MS = 5 * 60_000

const cache = new Map<string, { root: string; at: number }>()

export async function npmGlobalRoot(env: NodeJS.ProcessEnv, now: number = Date.now()): Promise<string> {
  const key = JSON.stringify(
    Object.entries(env)
      .filter(([k]) => k === 'PATH' || k === 'HOME' || /^npm_config_/i.test(k))
      .sort(),
  )
  const hit = cache.get(key)
  if (hit && now - hit.at < NPM_ROOT_CACHE_MS) return hit.root
  const root = await askNpm(env)
  cache.set(key, { root, at: now })
  return root
}

function askNpm(env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['root', '-g'],
      { env, timeout: NPM_TIMEOUT_MS, windowsHide: true },
      (error, stdout) => {
        const root = stdout.trim().split('\n').pop()?.trim() ?? ''
        if (error || root === '')
          reject(new Error(error ? error.message.split('\n')[0] : 'npm printed no folder'))
        else resolve(root)
      },
    )
  })
}

/**
 * The npm global package folder, asked from npm itself (`npm root -g`) so that every way of setting
 * the prefix (NPM_CONFIG_PREFIX, .npmrc, nvm) is respected. Spawning npm costs a few hundred ms, so
 * the answer is kept for a while per environment (PATH and npm settings); reloads stay fast.
 */
import { npmProblem, runNpm } from './npm'

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

async function askNpm(env: NodeJS.ProcessEnv): Promise<string> {
  const run = await runNpm(['root', '-g'], env, NPM_TIMEOUT_MS)
  if (run.code !== 0) throw new Error(`npm root -g failed: ${npmProblem(run)}`)
  const root = run.stdout.trim().split('\n').pop()?.trim() ?? ''
  if (root === '') throw new Error('npm root -g printed no folder')
  return root
}

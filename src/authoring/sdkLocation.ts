/**
 * Where this package's SDK sources are. Plugins import `bridge/sdk`; the build resolves it to the SDK
 * that ships with the running `bridge-plugin` (dist/cli -> ../../src/sdk), so a plugin always builds
 * against the SDK of the daemon that will load it.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'esbuild'

let cached: string | undefined

export function sdkDir(): string {
  if (cached) return cached
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'src', 'sdk')
    if (existsSync(join(candidate, 'index.ts')) && existsSync(join(candidate, 'runtime.ts')))
      return (cached = candidate)
    dir = dirname(dir)
  }
  throw new Error(`bridge SDK sources not found above ${fileURLToPath(import.meta.url)}; reinstall bridge`)
}

/** esbuild plugin: `bridge/sdk` and `bridge/sdk/runtime` resolve to this package's SDK. */
export function sdkResolver(): Plugin {
  return {
    name: 'bridge-sdk',
    setup(build) {
      build.onResolve({ filter: /^bridge\/sdk(\/runtime)?$/ }, (args) => ({
        path: join(sdkDir(), args.path.endsWith('/runtime') ? 'runtime.ts' : 'index.ts'),
      }))
    },
  }
}

// A real npm registry for tests: verdaccio on 127.0.0.1 (a free port) with its storage in a temp
// folder and no uplink, so nothing leaves the machine. `env()` is what a user's npm would have: this
// registry, a token to publish with, a private cache and a temp global prefix.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { runServer } from 'verdaccio'
import { REGISTRY_NPM_TIMEOUT_MS } from './timing'

const run = promisify(execFile)

export interface PublishOptions {
  name: string
  version: string
  description?: string
  author?: string
  /** Extra package.json fields (e.g. `bin`). */
  fields?: Record<string, unknown>
}

export interface TestRegistry {
  url: string
  /** Verdaccio's storage folder: `<storage>/<package>/package.json` is the metadata it serves. */
  storage: string
  /** A global npm prefix of its own (packages land in `<prefix>/lib/node_modules`). */
  prefix: string
  /** Environment for npm, the CLI and the daemon: this registry, its token, a temp cache and `prefix`. */
  env(): Record<string, string>
  /**
   * Publishes the folder `dir` (a built plugin, or any package folder) as `name@version`. The folder
   * is copied first; package.json gets the name, version and fields, and a plugin's dist/tools.json
   * the version, as `bridge-plugin build` would have written it.
   */
  publish(dir: string, options: PublishOptions): Promise<void>
  /**
   * Publishes packages from `nodeModules` as they are installed there (name, version, package.json
   * unchanged), so an install from this registry (which has no uplink) finds a package's dependencies.
   */
  mirror(nodeModules: string, packageNames: string[]): Promise<void>
  close(): Promise<void>
}

export async function startRegistry(): Promise<TestRegistry> {
  const root = mkdtempSync(join(tmpdir(), 'bridge-registry-'))
  const server = (await runServer({
    self_path: root,
    storage: join(root, 'storage'),
    auth: { htpasswd: { file: join(root, 'htpasswd'), max_users: 10 } },
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' } },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
    web: { enable: false },
  } as Parameters<typeof runServer>[0])) as Server
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}/`
  const user = await fetch(`${url}-/user/org.couchdb.user:tester`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'tester', password: 'tester-password-1' }),
  })
  const { token } = (await user.json()) as { token: string }
  const npmrc = join(root, 'npmrc')
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`, { mode: 0o600 })
  const prefix = join(root, 'prefix')
  mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true })
  const env = (): Record<string, string> => ({
    npm_config_registry: url,
    npm_config_userconfig: npmrc,
    npm_config_cache: join(root, 'cache'),
    NPM_CONFIG_PREFIX: prefix,
    npm_config_update_notifier: 'false',
  })

  return {
    url,
    storage: join(root, 'storage'),
    prefix,
    env,
    async publish(dir, options) {
      const stage = mkdtempSync(join(root, 'stage-'))
      try {
        cpSync(dir, stage, {
          recursive: true,
          filter: (src) => !src.includes('node_modules'),
        })
        const pkgFile = join(stage, 'package.json')
        const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as Record<string, unknown>
        delete pkg.private
        delete pkg.scripts
        writeFileSync(
          pkgFile,
          JSON.stringify({
            ...pkg,
            name: options.name,
            version: options.version,
            description: options.description ?? `${options.name} for tests`,
            author: options.author ?? 'Test Author',
            ...options.fields,
          }),
        )
        const toolsFile = join(stage, 'dist', 'tools.json')
        try {
          const tools = JSON.parse(readFileSync(toolsFile, 'utf8')) as Record<string, unknown>
          writeFileSync(toolsFile, JSON.stringify({ ...tools, version: options.version }))
        } catch {
          // Not a built plugin: published as it is.
        }
        await run('npm', ['publish', '--access', 'public', '--ignore-scripts'], {
          cwd: stage,
          env: { ...process.env, ...env() },
          timeout: REGISTRY_NPM_TIMEOUT_MS,
        })
      } finally {
        rmSync(stage, { recursive: true, force: true })
      }
    },
    async mirror(nodeModules, packageNames) {
      // All at once: each is an npm process of its own, mostly waiting on its start and the upload.
      await Promise.all(
        packageNames.map((name) =>
          run('npm', ['publish', '--access', 'public', '--ignore-scripts', '--tag', 'latest'], {
            cwd: join(nodeModules, name),
            env: { ...process.env, ...env() },
            timeout: REGISTRY_NPM_TIMEOUT_MS,
            maxBuffer: 16 * 1024 * 1024,
          }),
        ),
      )
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections?.()
      })
      rmSync(root, { recursive: true, force: true })
    },
  }
}

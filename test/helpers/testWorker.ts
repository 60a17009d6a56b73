// The extension's service worker rebuilt for a test: the real background (connection, dispatcher,
// everything) from source, plus what the test asks for, written over `background.js` of an extension
// copy. The shipped extension never contains any of it. Given to esbuild as stdin so no test file
// imports extension code (the extension has its own tsconfig with Chrome types).
import { build } from 'esbuild'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..', '..')

/**
 * The keepalive's clock (extension/background/connection.ts CONNECTION_TIMING; shipped: a ping every
 * 20 s, a socket silent for 45 s given up).
 */
export interface ConnectionTiming {
  pingIntervalMs?: number
  silenceLimitMs?: number
}

export interface TestWorkerOptions {
  /** Statements run once the background has loaded, e.g. `globalThis.__bridgeTest = { ... }` after imports. */
  lines?: string[]
  connectionTiming?: ConnectionTiming
}

/** Rebuilds `background.js` in the extension copy `dir`. */
export async function bundleTestWorker(dir: string, opts: TestWorkerOptions): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  // The overrides run when the worker's module body has run and before any socket can open (opening
  // one waits for a fetch), so the first connection already uses them.
  const timing = opts.connectionTiming
    ? [
        "import { CONNECTION_TIMING } from './extension/background/connection'",
        `Object.assign(CONNECTION_TIMING, ${JSON.stringify(opts.connectionTiming)})`,
      ]
    : []
  const lines = ["import './extension/background'", ...(opts.lines ?? []), ...timing]
  await build({
    stdin: { contents: lines.join('\n'), resolveDir: root, loader: 'ts', sourcefile: 'bridgeTestWorker.ts' },
    outfile: join(dir, 'background.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    define: { __BRIDGE_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
  })
}

// Builds everything that runs outside vitest: the daemon and CLIs (Node), the plugin SDK (neutral),
// and the MV3 extension (browser). One esbuild pass each; entries that do not exist yet are skipped
// so the build works at every stage of the tree.
import { build } from 'esbuild'
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const define = { __BRIDGE_VERSION__: JSON.stringify(pkg.version) }
const at = (p) => join(root, p)
const present = (entries) =>
  Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(at(file))))
const quiet = process.argv.includes('--quiet')

// Build into a fresh folder and swap it in at the end, so a daemon or test that reads dist/ while a
// build runs never sees it half-written or empty.
const out = `dist.building-${process.pid}`
rmSync(at(out), { recursive: true, force: true })

const node = present({
  'cli/bridge': 'cli/bridge.ts',
  'cli/bridgePlugin': 'cli/bridgePlugin.ts',
  server: 'src/main.ts',
})
const jobs = []
if (Object.keys(node).length)
  jobs.push(
    build({
      entryPoints: Object.fromEntries(Object.entries(node).map(([k, v]) => [k, at(v)])),
      outdir: at(out),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: true,
      define,
      banner: { js: '#!/usr/bin/env node' },
      logLevel: 'warning',
    }),
  )

const sdk = present({ 'sdk/index': 'src/sdk/index.ts', 'sdk/runtime': 'src/sdk/runtime.ts' })
if (Object.keys(sdk).length)
  jobs.push(
    build({
      entryPoints: Object.fromEntries(Object.entries(sdk).map(([k, v]) => [k, at(v)])),
      outdir: at(out),
      bundle: true,
      platform: 'neutral',
      format: 'esm',
      target: 'es2022',
      define,
      logLevel: 'warning',
    }),
  )

// Extension: the service worker is an ES module; content scripts and pages are IIFEs.
const extModules = present({ background: 'extension/background.ts' })
const extScripts = present({
  content: 'extension/content.ts',
  sidepanel: 'extension/sidepanel/main.tsx',
  // Page library of the built-in browser tools, injected into tabs from file.
  builtinsPage: 'extension/builtins/page/index.ts',
})
const extCommon = {
  outdir: at(`${out}/extension`),
  bundle: true,
  platform: 'browser',
  target: 'chrome120',
  define,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
}
if (Object.keys(extModules).length)
  jobs.push(
    build({
      ...extCommon,
      format: 'esm',
      entryPoints: Object.fromEntries(Object.entries(extModules).map(([k, v]) => [k, at(v)])),
    }),
  )
if (Object.keys(extScripts).length)
  jobs.push(
    build({
      ...extCommon,
      format: 'iife',
      entryPoints: Object.fromEntries(Object.entries(extScripts).map(([k, v]) => [k, at(v)])),
    }),
  )

await Promise.all(jobs)
if (existsSync(at('extension/static'))) {
  mkdirSync(at(`${out}/extension`), { recursive: true })
  cpSync(at('extension/static'), at(`${out}/extension`), { recursive: true })
}
const old = `dist.old-${process.pid}`
if (existsSync(at('dist'))) renameSync(at('dist'), at(old))
renameSync(at(out), at('dist'))
rmSync(at(old), { recursive: true, force: true })
if (!quiet) console.log(`built dist/ (bridge ${pkg.version})`)

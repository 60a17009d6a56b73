// Builds everything that runs outside vitest: the daemon and CLIs (Node), the plugin SDK (neutral),
// and the MV3 extension (browser). One esbuild pass each; entries that do not exist yet are skipped
// so the build works at every stage of the tree.
//   node scripts/build.mjs [--quiet] [--dist <folder>] [--version <x.y.z>]
// --dist builds into another folder than dist/ and --version stamps another version than package.json's
// (the packaging test builds a newer release of the package this way, without touching the checkout).
import { build } from 'esbuild'
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { precompiledValidatorsModule } from './precompileValidators.mjs'
import { TOOL_FACTS_MODULE, toolFactsModule } from './toolFacts.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const argValue = (name) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}
const version = argValue('--version') ?? pkg.version
const define = { __BRIDGE_VERSION__: JSON.stringify(version) }
const at = (p) => join(root, p)
const dist = resolve(root, argValue('--dist') ?? 'dist')
const present = (entries) =>
  Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(at(file))))
const quiet = process.argv.includes('--quiet')
/** Packages the Node bundles (daemon, CLIs) import at run time instead of carrying (see below). */
const NODE_EXTERNAL = ['uWebSockets.js', 'bufferutil', 'utf-8-validate', 'esbuild', '@statelyai/inspect']

// Build into a fresh folder and swap it in at the end, so a daemon or test that reads dist/ while a
// build runs never sees it half-written or empty.
const out = `${dist}.building-${process.pid}`
rmSync(out, { recursive: true, force: true })

const node = present({
  'cli/bridge': 'cli/bridge.ts',
  'cli/bridgePlugin': 'cli/bridgePlugin.ts',
  server: 'src/main.ts',
  // The data-flow guard's worker thread, started by the daemon from beside its bundle.
  guardWorker: 'src/guard/fingerprintWorker.ts',
})
const jobs = []
// src/validationPrecompiled.ts is empty in the sources; the Node bundles get the validators compiled
// ahead of time instead (scripts/precompileValidators.mjs), so a start compiles no schema.
const precompiled = Object.keys(node).length ? await precompiledValidatorsModule() : ''
const precompiledValidators = {
  name: 'precompiled-validators',
  setup(b) {
    b.onResolve({ filter: /^\.\/validationPrecompiled$/ }, (args) =>
      args.importer === at('src/validation.ts')
        ? { path: 'validationPrecompiled.generated.js', namespace: 'precompiled' }
        : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: 'precompiled' }, () => ({
      contents: precompiled,
      loader: 'js',
      resolveDir: root,
    }))
  },
}
// One build per entry, so each carries all it runs at start in one file; what it imports on demand
// (the dev watcher, consola's prompt) goes to a chunk of its own, parsed only if it is loaded.
for (const [name, file] of Object.entries(node))
  jobs.push(
    build({
      entryPoints: { [name]: at(file) },
      outdir: out,
      bundle: true,
      splitting: true,
      chunkNames: `chunks/${basename(name)}-[name]-[hash]`,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // Dependencies are bundled: one file to read and compile at start instead of ~500 module files
      // (half of the daemon's start-up was Node's module loader), and a user's install pulls only the
      // package's two runtime dependencies. What stays external is native or optional (uWebSockets.js,
      // ws's bufferutil / utf-8-validate), run as a program (esbuild, which `bridge-plugin build`
      // drives), or a development tool (@statelyai/inspect). The MCP SDK, which only `bridge mcp`
      // uses, is bundled into a chunk of its own, loaded when that command runs.
      external: NODE_EXTERNAL,
      plugins: [precompiledValidators],
      // ASCII only: V8 keeps a module's source text for as long as the module lives, and a single
      // character past Latin-1 stores the whole bundle at two bytes per character. esbuild escapes
      // code; the comments it keeps are escaped by writeAscii.
      charset: 'ascii',
      write: false,
      sourcemap: true,
      define,
      // Bundled CommonJS packages (ajv, ws) call require() for Node built-ins: give the ES module one.
      banner: {
        js: [
          '#!/usr/bin/env node',
          "import { createRequire as __bridgeCreateRequire } from 'node:module'",
          'const require = __bridgeCreateRequire(import.meta.url)',
        ].join('\n'),
      },
      logLevel: 'warning',
    }).then(writeAscii),
  )

/** Writes a build's files, with any character past ASCII left in a comment as a \u escape. */
function writeAscii({ outputFiles }) {
  for (const f of outputFiles) {
    mkdirSync(dirname(f.path), { recursive: true })
    writeFileSync(
      f.path,
      f.path.endsWith('.js')
        ? f.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
        : f.contents,
      // The programs (dist/cli/*.js) are executable, as npm makes a package's bins: a checkout's
      // `dist/cli/bridge.js` runs as printed, and a link to it on PATH works.
      { mode: /[\\/]cli[\\/][^\\/]+\.js$/.test(f.path) ? 0o755 : 0o644 },
    )
  }
}

const sdk = present({ 'sdk/index': 'src/sdk/index.ts', 'sdk/runtime': 'src/sdk/runtime.ts' })
if (Object.keys(sdk).length)
  jobs.push(
    build({
      entryPoints: Object.fromEntries(Object.entries(sdk).map(([k, v]) => [k, at(v)])),
      outdir: out,
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
  // Sites' own tools (WebMCP): registered only for the sites the user turned on.
  siteContent: 'extension/siteContent.ts',
  sidepanel: 'extension/sidepanel/main.tsx',
  // Page library of the built-in browser tools, injected into tabs from file.
  builtinsPage: 'extension/builtins/pageLibrary/index.ts',
  // A person's demonstration: injected into the tab the side panel records.
  personRecorder: 'extension/recorder/page.ts',
})
// The side panel shows each built-in tool's group and core flag: src/tools/facts.ts, computed here
// once (scripts/toolFacts.mjs), so the panel does not bundle every tool's definition to derive them.
const factsText = Object.keys(extScripts).length ? await toolFactsModule() : ''
const toolFactsAtBuild = {
  name: 'tool-facts',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]tools[\\/]facts\.ts$/ }, (args) =>
      args.path === TOOL_FACTS_MODULE ? { contents: factsText, loader: 'js' } : undefined,
    )
  },
}
const extCommon = {
  outdir: join(out, 'extension'),
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
      plugins: [toolFactsAtBuild],
    }),
  )

await Promise.all(jobs)
if (existsSync(at('extension/static'))) {
  mkdirSync(join(out, 'extension'), { recursive: true })
  cpSync(at('extension/static'), join(out, 'extension'), { recursive: true })
}
const old = `${dist}.old-${process.pid}`
if (existsSync(dist)) renameSync(dist, old)
renameSync(out, dist)
rmSync(old, { recursive: true, force: true })
if (!quiet) console.log(`built ${relative(root, dist) || '.'}/ (bridge ${version})`)

/**
 * `bridge plugin create`: the files of a new plugin package. The package builds with
 * `bridge-plugin build` and passes its own test (`npm test`: build, then `node --test` running the
 * adapter bundle in a small page stub) before the author changes anything.
 */
import { PluginBuildError } from './errors'
import { pluginNameFromPackage } from '../protocol/constants'
import { pluginNameProblem } from './readPackage'
import { parseMatchPattern } from '../sdk/matchPattern'

/** The TypeScript the generated package installs for its type-check (the one bridge is built with). */
const TYPESCRIPT_RANGE = '~5.9.3'

export interface ScaffoldOptions {
  name: string
  /** Site the plugin works on: `example.com`, `https://app.example.com/path`, `localhost:3000`. */
  domain: string
  displayName?: string
  description?: string
  /** Absolute path of this bridge's SDK entry, for the generated tsconfig (editor types). */
  sdkEntry: string
}

export interface Scaffold {
  name: string
  packageName: string
  urlPatterns: string[]
  files: Record<string, string>
}

/** Validates the options and returns every file of the new package, keyed by relative path. */
export function scaffoldPlugin(options: ScaffoldOptions): Scaffold {
  const name = pluginNameFromPackage(options.name.trim())
  const problem = pluginNameProblem(name)
  if (problem) throw new PluginBuildError(problem)
  const urlPatterns = urlPatternsFor(options.domain)
  const displayName = options.displayName?.trim() || titleCase(name)
  const description = options.description?.trim() || `bridge plugin for ${hostOf(options.domain)}`
  const packageName = `bridge-plugin-${name}`
  const pkg = {
    name: packageName,
    version: '0.1.0',
    description,
    type: 'module',
    license: 'MIT',
    keywords: ['bridge-plugin'],
    files: ['dist', 'src', 'icon.svg'],
    bridge: { displayName, urlPatterns, icon: 'icon.svg' },
    scripts: {
      build: 'bridge-plugin build',
      dev: 'bridge-plugin build --watch',
      inspect: 'bridge-plugin inspect',
      typecheck: 'tsc -p .',
      test: 'bridge-plugin build && node --test',
    },
    // `bridge-plugin build` type-checks with it once installed (`npm install`); it never ships to pages.
    devDependencies: { typescript: TYPESCRIPT_RANGE },
  }
  return {
    name,
    packageName,
    urlPatterns,
    files: {
      'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
      'src/index.ts': indexTs(displayName),
      'test/adapter.test.mjs': adapterTest(name),
      'tsconfig.json': `${JSON.stringify(tsconfig(options.sdkEntry), null, 2)}\n`,
      'icon.svg': ICON,
      '.gitignore': 'node_modules/\ndist/\n',
      'README.md': readme(name, displayName, description, urlPatterns),
    },
  }
}

/**
 * Match patterns for a site: https for domains (and their subdomains), http for local hosts. A port
 * given is kept (`127.0.0.1:8790` matches only that server); without one, any port matches.
 */
export function urlPatternsFor(domain: string): string[] {
  const host = hostOf(domain)
  if (!host) throw new PluginBuildError(`"${domain}" is not a domain; give one like example.com`)
  const port = portOf(domain)
  const local = host === 'localhost' || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[')
  const patterns = local
    ? [`http://${host}${port}/*`]
    : [`https://${host}${port}/*`, `https://*.${host.replace(/^www\./, '')}${port}/*`]
  for (const pattern of patterns) {
    const parsed = parseMatchPattern(pattern)
    if (!parsed.ok)
      throw new PluginBuildError(`"${domain}" does not give a valid match pattern: ${parsed.message}`)
  }
  return [...new Set(patterns)]
}

function authorityOf(domain: string): string {
  const trimmed = domain.trim().toLowerCase()
  const withoutScheme = trimmed.replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
  return withoutScheme.split(/[/?#]/)[0] ?? ''
}

function hostOf(domain: string): string {
  const authority = authorityOf(domain)
  return authority.startsWith('[') ? authority.replace(/\]:\d+$/, ']') : authority.replace(/:\d+$/, '')
}

/** `:8790` when the domain names a port, else empty. */
function portOf(domain: string): string {
  const port = /:(\d{1,5})$/.exec(authorityOf(domain))?.[1]
  return port === undefined ? '' : `:${port}`
}

function titleCase(name: string): string {
  return name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ')
}

function tsconfig(sdkEntry: string) {
  return {
    compilerOptions: {
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      // Editor types for `bridge/sdk`; `bridge-plugin build` resolves it to the SDK of the bridge it runs with.
      paths: { 'bridge/sdk': [sdkEntry] },
    },
    include: ['src'],
  }
}

const indexTs = (displayName: string) => `/**
 * ${displayName}: tools an AI agent can use in your logged-in tab. Each tool runs inside the page,
 * with the page's cookies. Build with \`npm run build\`; the running bridge daemon picks it up.
 */
import { definePlugin, defineTool, Type } from 'bridge/sdk'

const pageInfo = defineTool({
  name: 'page_info',
  description: 'Return the title and address of the page this plugin runs in.',
  input: Type.Object({}),
  output: Type.Object({ title: Type.String(), url: Type.String() }),
  handle: (_input, ctx) => {
    ctx.log.debug('reading the page title')
    return { title: document.title, url: location.href }
  },
})

const findText = defineTool({
  name: 'find_text',
  description: 'Count how often a text occurs in the visible page text.',
  input: Type.Object({
    text: Type.String({ minLength: 1, maxLength: 200, description: 'the text to look for' }),
  }),
  output: Type.Object({ count: Type.Integer() }),
  handle: (input) => {
    const body = document.body?.innerText ?? ''
    return { count: body.split(input.text).length - 1 }
  },
})

// A tool that calls the site's own API (same origin, with the user's cookies) looks like this:
//
// const listItems = defineTool({
//   name: 'list_items',
//   description: 'List the items of the signed-in user.',
//   input: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
//   handle: async (input, ctx) => {
//     ctx.progress(0, 1, 'loading items')
//     const items = await ctx.fetchJSON<unknown[]>('/api/items')
//     return items.slice(0, input.limit ?? 20)
//   },
// })

export default definePlugin({
  // True when the page can run the tools, typically "the user is signed in".
  // Replace with a check for your site, e.g. document.querySelector('[data-user]') !== null.
  isReady: () => document.readyState !== 'loading',
  tools: [pageInfo, findText],
})
`

const adapterTest = (
  name: string,
) => `// Runs the built adapter (dist/adapter.iife.js) in a small page stub, the way the bridge extension
// runs it in a tab. \`npm test\` builds first, then runs this with node --test. The tests of the
// example tools skip themselves once you remove those tools; copy one for each tool you add.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, test } from 'node:test'
import { createContext, runInContext } from 'node:vm'
import { MessageChannel, MessagePort } from 'node:worker_threads'

const manifest = JSON.parse(readFileSync(new URL('../dist/tools.json', import.meta.url), 'utf8'))
const bundle = readFileSync(new URL('../dist/adapter.iife.js', import.meta.url), 'utf8')
const toolNames = manifest.tools.map((t) => t.name)
/** Skips a tool's test (with the reason) once the tool is gone from src/index.ts. */
const whileDefined = (tool) => ({ skip: !toolNames.includes(tool) && \`\${tool} is no longer defined\` })

// Each page's channel is closed at the end, or its open port would keep the test process alive.
const channels = []
after(() => channels.forEach((port) => port.close()))

/**
 * A page with a title, visible text and elements by CSS selector: \`elements: { '[data-user]': { textContent: 'Ada' } }\`
 * makes document.querySelector('[data-user]') return that object (null for any other selector).
 */
function page({ title = 'Example page', text = '', elements = {} } = {}) {
  const events = []
  let channel
  const all = (selector) => (Object.hasOwn(elements, selector) ? [].concat(elements[selector]) : [])
  const document = {
    title,
    readyState: 'complete',
    body: { innerText: text, textContent: text },
    querySelector: (selector) => all(selector)[0] ?? null,
    querySelectorAll: (selector) => all(selector),
    getElementById: (id) => all(\`#\${id}\`)[0] ?? null,
  }
  const window = createContext({
    location: { href: 'https://example.test/start', origin: 'https://example.test' },
    document,
    // The adapter hands its private channel to the extension with one window message.
    postMessage: (hello, _origin, [port] = []) => {
      if (hello.plugin === '${name}' && !channel) channel = port
    },
    fetch: () => Promise.reject(new Error('no network in tests')),
    MessageChannel,
    MessagePort,
    MessageEvent,
    EventTarget,
    Event,
    AbortController,
    Headers,
    URL,
    setTimeout,
    clearTimeout,
  })
  runInContext(bundle, window)
  assert.ok(channel, 'the adapter opened no channel')
  channels.push(channel)
  let next = 1
  const pending = new Map()
  channel.on('message', (text) => {
    const message = JSON.parse(text)
    if (typeof message.id === 'number') pending.get(message.id)?.(message)
    else events.push(message)
  })
  const ask = (request) =>
    new Promise((resolve) => {
      const id = next++
      pending.set(id, resolve)
      channel.postMessage(JSON.stringify({ id, ...request }))
    })
  const adapter = {
    isReady: async () => (await ask({ op: 'ready' })).ready,
    invoke: async (tool, input, dispatchId) => (await ask({ op: 'invoke', tool, input, dispatchId })).result,
  }
  return { adapter, events }
}

// Values made inside the page stub have the stub's prototypes: compare them as plain JSON.
const plain = (value) => JSON.parse(JSON.stringify(value))

test('tools.json describes the plugin and each of its tools', () => {
  assert.equal(manifest.name, '${name}')
  assert.ok(manifest.tools.length > 0, 'the plugin defines no tools')
  for (const tool of manifest.tools) {
    assert.match(tool.name, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/)
    assert.ok(tool.description, \`\${tool.name} has no description\`)
    assert.equal(tool.inputSchema.type, 'object', \`\${tool.name}'s input is not an object\`)
  }
})

test('the adapter opens its channel and answers the readiness probe', async () => {
  const { adapter } = page()
  assert.equal(typeof (await adapter.isReady()), 'boolean')
})

test('page_info returns the page title and address', whileDefined('page_info'), async () => {
  const { adapter, events } = page({ title: 'Inbox' })
  const result = await adapter.invoke('page_info', {}, 'test-1')
  assert.deepEqual(plain(result), { ok: true, output: { title: 'Inbox', url: 'https://example.test/start' } })
  assert.equal(events[0].kind, 'log')
})

test('find_text counts occurrences', whileDefined('find_text'), async () => {
  const { adapter } = page({ text: 'one fish two fish' })
  const result = await adapter.invoke('find_text', { text: 'fish' }, 'test-2')
  assert.deepEqual(plain(result), { ok: true, output: { count: 2 } })
})
`

const readme = (
  name: string,
  displayName: string,
  description: string,
  patterns: string[],
) => `# ${displayName}

${description}. A bridge plugin: tools an AI agent can call in your own,
logged-in browser tab. It runs in tabs matching ${patterns.map((p) => `\`${p}\``).join(', ')}.

\`\`\`sh
npm install              # TypeScript, for the type-check that bridge-plugin build runs
npm test                 # bridge-plugin build, then the adapter test in test/
npm run build            # type-check, build dist/, register this folder with bridge, reload a running daemon
npm run dev              # rebuild on every change
npm run inspect          # show the built tools and their inputs
\`\`\`

The tools appear to agents as \`${name}_<tool>\`. They start switched off: turn them on (ask or auto)
in the bridge side panel. Edit \`src/index.ts\` to add tools; \`bridge.urlPatterns\` in package.json
selects the tabs the plugin runs in.
`

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24"><rect x="3" y="3" width="18" height="18" rx="4" fill="#dbeafe" stroke="#1d4ed8" stroke-width="1.5"/><path d="M8 12h8M12 8v8" stroke="#1d4ed8" stroke-width="1.5" stroke-linecap="round"/></svg>
`

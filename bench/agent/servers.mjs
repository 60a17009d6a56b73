// The three MCP servers under test, each started fresh and driven by the MCP SDK client, each with
// an adapter from the scripted agent's few moves (open, click, type, fill, ...) to its own tools:
// - bridge: the built daemon (dist/server.js) and the built extension in Chromium (playwright-core
//   started on its own, headless, 1280x720, no automation attached), the browser tools turned on as a user does;
// - Playwright MCP and chrome-devtools-mcp at their pinned versions (bench/peerServers.mjs installs
//   and starts them), over stdio, each launching /usr/bin/chromium headless at 1280x720 itself.
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connectPeer, PEERS, peerSpec } from '../peerServers.mjs'
import { connectClient, startTarget } from '../targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const CHROMIUM = process.env.BRIDGE_CHROMIUM ?? '/usr/bin/chromium'
export const VIEWPORT = { width: 1280, height: 720 }

const textOf = (result) =>
  (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n')

/** Finds the ref of a line in a server's text: bridge and Playwright `[ref=e12]`, devtools `uid=1_5`. */
const REF = {
  bridge: /\[ref=((?:f\d+)?e\d+)\]/g,
  playwright: /\[ref=((?:f\d+)?e\d+)\]/g,
  devtools: /uid=(\d+_\d+)/g,
}

/** Playwright MCP: actions write their snapshot to a file, so the agent snapshots to see the page. */
async function playwright() {
  const conn = await connectPeer(
    PEERS.playwright,
    [
      '--headless',
      '--isolated',
      '--no-sandbox',
      '--executable-path',
      CHROMIUM,
      '--viewport-size',
      `${VIEWPORT.width}x${VIEWPORT.height}`,
    ],
    'bridge-agent-bench',
  )
  const kind = (f) => (f.kind === 'select' ? 'combobox' : f.kind === 'checkbox' ? 'checkbox' : 'textbox')
  return {
    name: PEERS.playwright.name,
    key: 'playwright',
    package: peerSpec(PEERS.playwright),
    ...conn,
    ref: REF.playwright,
    open: (url) => ['browser_navigate', { url }],
    snapshot: () => ['browser_snapshot', {}],
    click: (ref) => ['browser_click', { target: ref, element: 'target' }],
    type: (ref, text, submit) => ['browser_type', { target: ref, element: 'field', text, submit }],
    fill: (fields) => [
      'browser_fill_form',
      {
        fields: fields.map((f) => ({ target: f.ref, name: f.name, type: kind(f), value: String(f.value) })),
      },
    ],
    waitText: (text) => ['browser_wait_for', { text }],
    acceptDialog: () => ['browser_handle_dialog', { accept: true }],
  }
}

/** chrome-devtools-mcp: actions include a snapshot when asked (`includeSnapshot`). */
async function devtools() {
  const conn = await connectPeer(
    PEERS.devtools,
    [
      '--headless',
      '--isolated',
      '--executablePath',
      CHROMIUM,
      '--viewport',
      `${VIEWPORT.width}x${VIEWPORT.height}`,
      '--no-usage-statistics',
      '--no-performance-crux',
      '--chrome-arg=--no-sandbox',
    ],
    'bridge-agent-bench',
  )
  const pageId = 1
  return {
    name: PEERS.devtools.name,
    key: 'devtools',
    package: peerSpec(PEERS.devtools),
    ...conn,
    ref: REF.devtools,
    open: (url) => ['navigate_page', { pageId, type: 'url', url }],
    snapshot: () => ['take_snapshot', { pageId }],
    click: (ref, see) => ['click', { pageId, uid: ref, ...(see ? { includeSnapshot: true } : {}) }],
    type: (ref, text, submit, see) =>
      submit
        ? null // fill, then press Enter: two calls (see tasks.mjs)
        : ['fill', { pageId, uid: ref, value: text, ...(see ? { includeSnapshot: true } : {}) }],
    fill: (fields, see) => [
      'fill_form',
      {
        pageId,
        elements: fields.map((f) => ({ uid: f.ref, value: String(f.value) })),
        ...(see ? { includeSnapshot: true } : {}),
      },
    ],
    press: (key, see) => ['press_key', { pageId, key, ...(see ? { includeSnapshot: true } : {}) }],
    waitText: (text) => ['wait_for', { pageId, text: [text] }],
    acceptDialog: () => ['handle_dialog', { pageId, action: 'accept' }],
  }
}

/**
 * bridge: the real daemon and the real extension; the browser tools on `auto`, as a user turns them on.
 * `flowGuard` sets the data-flow guard for every client (default: none set, the guard's own `ask`).
 */
async function bridge({ flowGuard, inspect = false } = {}) {
  if (!existsSync(join(root, 'dist/extension/manifest.json'))) throw new Error('run npm run build first')
  const configDir = mkdtempSync(join(tmpdir(), 'bridge-agent-bench-'))
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      localPlugins: [],
      port: 9515,
      permissions: { browser: { permission: 'auto' } },
      ...(flowGuard ? { flowGuard: { mode: flowGuard } } : {}),
    }),
    { mode: 0o600 },
  )
  const target = await startTarget({ kind: 'node', configDir, probe: false })
  const extensionDir = mkdtempSync(join(tmpdir(), 'bridge-agent-bench-ext-'))
  cpSync(join(root, 'dist/extension'), extensionDir, { recursive: true })
  writeFileSync(join(extensionDir, 'auth.json'), JSON.stringify({ secret: target.secret }), { mode: 0o600 })
  writeFileSync(join(extensionDir, 'server.json'), JSON.stringify({ port: target.port }))
  const userDataDir = mkdtempSync(join(tmpdir(), 'bridge-agent-bench-profile-'))
  mkdirSync(join(userDataDir, 'Default'), { recursive: true })
  writeFileSync(
    join(userDataDir, 'Default', 'Preferences'),
    JSON.stringify({ extensions: { ui: { developer_mode: true } } }),
  )
  // Chromium on its own, as a user runs it: no automation client attached (one would answer dialogs).
  const browser = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--no-default-browser-check',
      `--user-data-dir=${userDataDir}`,
      `--window-size=${VIEWPORT.width},${VIEWPORT.height}`,
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
      // Only for bench/agent/stepProfile.mjs, which attaches to the extension's service worker alone.
      ...(inspect ? ['--remote-debugging-port=0'] : []),
      'about:blank',
    ],
    { stdio: 'ignore' },
  )
  const exited = new Promise((resolve) => browser.once('exit', resolve))
  const cleanup = async () => {
    browser.kill('SIGTERM')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))])
    if (browser.exitCode === null) browser.kill('SIGKILL')
    await target.stop()
    for (const dir of [configDir, extensionDir, userDataDir]) rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; ; i++) {
      const health = await (
        await fetch(`${target.url}/health`, { headers: { authorization: `Bearer ${target.secret}` } })
      ).json()
      if (health.extensionConnected) break
      if (i > 300) throw new Error('the extension did not connect')
      await new Promise((r) => setTimeout(r, 100))
    }
    const mcp = await connectClient(target)
    return {
      name: 'bridge',
      key: 'bridge',
      package: 'bridge (this version)',
      client: mcp.client,
      ref: REF.bridge,
      /** With `inspect`: the browser's DevTools endpoint (ws URL). */
      devtoolsUrl: () => {
        const [port, path] = readFileSync(join(userDataDir, 'DevToolsActivePort'), 'utf8').split('\n')
        return `ws://127.0.0.1:${port}${path}`
      },
      /** The daemon's audit entries so far (JSON lines of audit.log). */
      audit: () =>
        readFileSync(join(configDir, 'audit.log'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      async close() {
        await mcp.close()
        await cleanup()
      },
      /** `bridge <args>` against this daemon and its config, as a user types it (the workflows pass). */
      cli: (args) =>
        execFileSync(
          process.execPath,
          [join(root, 'dist/cli/bridge.js'), ...args, '--port', String(target.port)],
          {
            env: { ...process.env, BRIDGE_CONFIG_DIR: configDir, NO_COLOR: '1' },
            encoding: 'utf8',
          },
        ),
      open: (url) => ['browser_navigate', { url }],
      snapshot: () => ['browser_snapshot', {}],
      find: (text) => ['browser_find', { text }],
      click: (ref) => ['browser_click', { ref }],
      type: (ref, text, submit) => ['browser_type', { ref, text, ...(submit ? { submit: true } : {}) }],
      fill: (fields) => [
        'browser_fill_form',
        { fields: fields.map((f) => ({ ref: f.ref, value: f.value })) },
      ],
      press: (key) => ['browser_press_key', { key }],
      waitText: (text) => ['browser_wait_for', { text }],
      acceptDialog: () => ['browser_handle_dialog', { accept: true }],
    }
  } catch (err) {
    await cleanup()
    throw err
  }
}

export const SERVERS = { bridge, playwright, devtools }
export { textOf }

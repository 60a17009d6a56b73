// What the built-in catalogue costs an agent's context, beside the published peers: the `tools/list`
// of each peer MCP server (installed from npm at a pinned version, started over stdio, no browser
// launched: listing needs none) and of the built daemon (dist/server.js, every built-in tool on auto),
// each tool measured the same way, as the bytes of its JSON object. Overall and for the tools that do
// the same thing (MAPPING below). Writes bench/peers.json.
//
//   node scripts/build.mjs && node bench/peers.mjs
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { connectClient, startTarget } from './targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const peersDir = join(root, 'bench/tmp/peers')

/**
 * The peers as published, with the flags that list every tool they can offer (optional capabilities
 * on) and keep them from phoning home. Neither starts a browser before a tool is called.
 */
const PEERS = [
  {
    name: 'Playwright MCP',
    package: '@playwright/mcp',
    version: '0.0.83',
    bin: 'cli.js',
    args: ['--headless', '--isolated', '--caps', 'vision,pdf,devtools'],
  },
  {
    name: 'chrome-devtools-mcp',
    package: 'chrome-devtools-mcp',
    version: '1.11.0',
    bin: 'build/src/bin/chrome-devtools-mcp.js',
    args: [
      '--headless',
      '--isolated',
      '--no-usage-statistics',
      '--no-performance-crux',
      '--experimentalVision',
      '--categoryExtensions',
    ],
  },
]

/**
 * Peer tool -> our tool that does the same job. Only pairs where both sides do the same thing; a peer
 * tool whose job we split or merge maps to the one of ours an agent would call for it.
 */
const MAPPING = {
  'Playwright MCP': {
    browser_click: 'browser_click',
    browser_close: 'browser_close_tab',
    browser_console_messages: 'browser_console_logs',
    browser_drag: 'browser_drag',
    browser_evaluate: 'browser_evaluate',
    browser_file_upload: 'browser_upload_file',
    browser_fill_form: 'browser_fill_form',
    browser_handle_dialog: 'browser_handle_dialog',
    browser_hover: 'browser_hover',
    browser_navigate: 'browser_navigate',
    browser_navigate_back: 'browser_go_back',
    browser_network_requests: 'browser_network_requests',
    browser_press_key: 'browser_press_key',
    browser_resize: 'browser_resize_window',
    browser_select_option: 'browser_select_option',
    browser_snapshot: 'browser_snapshot',
    browser_take_screenshot: 'browser_screenshot',
    browser_type: 'browser_type',
    browser_wait_for: 'browser_wait_for',
    browser_tabs: 'browser_list_tabs',
    browser_mouse_click_xy: 'browser_mouse_click_xy',
    browser_mouse_move_xy: 'browser_mouse_move_xy',
    browser_mouse_drag_xy: 'browser_mouse_drag_xy',
    browser_find: 'browser_find',
    browser_drop: 'browser_drop',
    browser_network_request: 'browser_network_request',
    browser_emulate_media: 'browser_emulate_media',
    browser_mouse_down: 'browser_mouse_down',
    browser_mouse_up: 'browser_mouse_up',
    browser_mouse_wheel: 'browser_mouse_wheel',
    browser_pdf_save: 'browser_save_pdf',
  },
  'chrome-devtools-mcp': {
    click: 'browser_click',
    close_page: 'browser_close_tab',
    drag: 'browser_drag',
    emulate: 'browser_set_viewport',
    evaluate_script: 'browser_evaluate',
    fill: 'browser_type',
    fill_form: 'browser_fill_form',
    get_console_message: 'browser_console_message',
    get_network_request: 'browser_network_request',
    handle_dialog: 'browser_handle_dialog',
    hover: 'browser_hover',
    list_console_messages: 'browser_console_logs',
    list_network_requests: 'browser_network_requests',
    list_pages: 'browser_list_tabs',
    navigate_page: 'browser_navigate',
    new_page: 'browser_open_tab',
    press_key: 'browser_press_key',
    resize_page: 'browser_resize_window',
    select_page: 'browser_focus_tab',
    take_screenshot: 'browser_screenshot',
    take_snapshot: 'browser_snapshot',
    type_text: 'browser_insert_text',
    upload_file: 'browser_upload_file',
    wait_for: 'browser_wait_for',
    click_at: 'browser_mouse_click_xy',
  },
}

const bytesOf = (tool) => Buffer.byteLength(JSON.stringify(tool))
const perTool = (tools) =>
  tools.length ? Math.round(tools.reduce((sum, t) => sum + bytesOf(t), 0) / tools.length) : null

function installPeers() {
  mkdirSync(peersDir, { recursive: true })
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      peersDir,
      '--ignore-scripts',
      '--save-exact',
      '--no-audit',
      '--no-fund',
      ...PEERS.map((p) => `${p.package}@${p.version}`),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
}

async function peerTools(peer) {
  const home = mkdtempSync(join(tmpdir(), 'bridge-peer-'))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(peersDir, 'node_modules', peer.package, peer.bin), ...peer.args],
    // A throwaway home and CI=1: nothing of the user's profile is read, no usage statistics are sent.
    env: { PATH: process.env.PATH ?? '', HOME: home, CI: '1' },
    stderr: 'ignore',
  })
  const client = new Client({ name: 'bridge-bench', version: '1.0.0' })
  try {
    await client.connect(transport)
    return (await client.listTools()).tools
  } finally {
    await client.close()
    rmSync(home, { recursive: true, force: true })
  }
}

/** The daemon's own tools/list with every built-in tool on auto (so none is left out or marked "asks"). */
async function ourTools() {
  const configDir = mkdtempSync(join(tmpdir(), 'bridge-bench-peers-'))
  try {
    // The first start writes the config directory and names the built-in tools (/health).
    const first = await startTarget({ kind: 'node', configDir, probe: false })
    const health = await (
      await fetch(`${first.url}/health`, { headers: { authorization: `Bearer ${first.secret}` } })
    ).json()
    await first.stop()
    const names = health.browserToolNames
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        localPlugins: [],
        port: 9515,
        permissions: {
          browser: { permission: 'auto', tools: Object.fromEntries(names.map((n) => [n, 'auto'])) },
        },
      }),
    )
    const target = await startTarget({ kind: 'node', configDir, probe: false })
    try {
      const mcp = await connectClient(target)
      const { tools } = await mcp.client.listTools()
      await mcp.close()
      if (tools.length !== names.length)
        throw new Error(`listed ${tools.length} of ${names.length} built-in tools`)
      return tools
    } finally {
      await target.stop()
    }
  } finally {
    rmSync(configDir, { recursive: true, force: true })
  }
}

installPeers()
const ours = await ourTools()
const byName = new Map(ours.map((t) => [t.name, t]))
const peers = []
for (const peer of PEERS) {
  const tools = await peerTools(peer)
  const mapping = MAPPING[peer.name]
  const matched = tools.filter((t) => mapping[t.name] && byName.has(mapping[t.name]))
  const unknown = Object.keys(mapping).filter((name) => !tools.some((t) => t.name === name))
  const theirs = matched.map((t) => t)
  const mine = matched.map((t) => byName.get(mapping[t.name]))
  peers.push({
    name: peer.name,
    package: `${peer.package}@${peer.version}`,
    flags: peer.args.join(' '),
    tools: tools.length,
    bytes: tools.reduce((sum, t) => sum + bytesOf(t), 0),
    bytesPerTool: perTool(tools),
    sameTools: {
      count: matched.length,
      peerBytesPerTool: perTool(theirs),
      bridgeBytesPerTool: perTool(mine),
      pairs: Object.fromEntries(
        matched.map((t) => [
          t.name,
          {
            bridge: mapping[t.name],
            peerBytes: bytesOf(t),
            bridgeBytes: bytesOf(byName.get(mapping[t.name])),
          },
        ]),
      ),
    },
    ...(unknown.length ? { mappedButNotListed: unknown } : {}),
    toolNames: tools.map((t) => t.name),
  })
}
const result = {
  date: new Date().toISOString().slice(0, 10),
  method:
    'tools/list over MCP; each tool object (name, description, inputSchema, and whatever else the server lists) as JSON, bytes per tool',
  bridge: {
    tools: ours.length,
    bytes: ours.reduce((sum, t) => sum + bytesOf(t), 0),
    bytesPerTool: perTool(ours),
  },
  peers,
}
writeFileSync(join(root, 'bench/peers.json'), `${JSON.stringify(result, null, 2)}\n`)
console.log(`bridge: ${ours.length} tools, ${result.bridge.bytesPerTool} B/tool`)
for (const p of peers)
  console.log(
    `${p.package}: ${p.tools} tools, ${p.bytesPerTool} B/tool; the ${p.sameTools.count} same tools: peer ${p.sameTools.peerBytesPerTool} B/tool, bridge ${p.sameTools.bridgeBytesPerTool} B/tool${p.mappedButNotListed ? `; mapped but not listed: ${p.mappedButNotListed.join(', ')}` : ''}`,
  )

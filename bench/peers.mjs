// What the built-in catalogue costs an agent's context, beside the published peers: the `tools/list`
// of each peer MCP server (installed from npm at a pinned version, started over stdio, no browser
// launched: listing needs none) and of the built daemon (dist/server.js, every built-in tool on auto),
// each tool measured the same way, as the bytes of its JSON object. Overall and for the tools that do
// the same thing (MAPPING below). Writes bench/peers.json.
//
//   node scripts/build.mjs && node bench/peers.mjs
//   node bench/peers.mjs --install   # only install the pinned peers (bench/peerServers.mjs) and stop
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connectPeer, installPeers, PEERS, peerSpec } from './peerServers.mjs'
import { connectClient, startTarget } from './targets.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

if (process.argv.includes('--help')) {
  console.log(`node bench/peers.mjs [--install]

Lists the tools of the pinned peers (${Object.values(PEERS).map(peerSpec).join(', ')}) and of the
built daemon, measures each tool as the bytes of its JSON object, writes bench/peers.json.
  --install  only install the peers into bench/tmp/peers (if they are not there yet), then stop`)
  process.exit(0)
}

/**
 * The peers as published, with the flags that list every tool they can offer (optional capabilities
 * on) and keep them from phoning home. Neither starts a browser before a tool is called.
 */
const LISTED = [
  {
    peer: PEERS.playwright,
    args: ['--headless', '--isolated', '--caps', 'vision,pdf,devtools'],
  },
  {
    peer: PEERS.devtools,
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
/** What a model is given of a tool: name, description and input schema (an output schema, a title and
 * annotations inform the client only). */
const modelBytesOf = (tool) =>
  bytesOf({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })
const perTool = (tools, measure = bytesOf) =>
  tools.length ? Math.round(tools.reduce((sum, t) => sum + measure(t), 0) / tools.length) : null

async function peerTools({ peer, args }) {
  const { client, close } = await connectPeer(peer, args)
  try {
    return (await client.listTools()).tools
  } finally {
    await close()
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

const installed = installPeers()
if (process.argv.includes('--install')) {
  const specs = Object.values(PEERS).map(peerSpec).join(', ')
  console.log(
    installed.length ? `installed ${specs} into bench/tmp/peers` : `${specs}: already in bench/tmp/peers`,
  )
  process.exit(0)
}
const ours = await ourTools()
const byName = new Map(ours.map((t) => [t.name, t]))
const peers = []
for (const listed of LISTED) {
  const { peer, args } = listed
  const tools = await peerTools(listed)
  const mapping = MAPPING[peer.name]
  const matched = tools.filter((t) => mapping[t.name] && byName.has(mapping[t.name]))
  const unknown = Object.keys(mapping).filter((name) => !tools.some((t) => t.name === name))
  const theirs = matched.map((t) => t)
  const mine = matched.map((t) => byName.get(mapping[t.name]))
  peers.push({
    name: peer.name,
    package: peerSpec(peer),
    flags: args.join(' '),
    tools: tools.length,
    bytes: tools.reduce((sum, t) => sum + bytesOf(t), 0),
    bytesPerTool: perTool(tools),
    modelBytesPerTool: perTool(tools, modelBytesOf),
    sameTools: {
      count: matched.length,
      peerBytesPerTool: perTool(theirs),
      bridgeBytesPerTool: perTool(mine),
      peerModelBytesPerTool: perTool(theirs, modelBytesOf),
      bridgeModelBytesPerTool: perTool(mine, modelBytesOf),
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
    'tools/list over MCP; each tool object (name, description, inputSchema, and whatever else the server lists) as JSON, bytes per tool; modelBytes: name, description and inputSchema only',
  bridge: {
    tools: ours.length,
    bytes: ours.reduce((sum, t) => sum + bytesOf(t), 0),
    bytesPerTool: perTool(ours),
    modelBytesPerTool: perTool(ours, modelBytesOf),
  },
  peers,
}
writeFileSync(join(root, 'bench/peers.json'), `${JSON.stringify(result, null, 2)}\n`)
console.log(
  `bridge: ${ours.length} tools, ${result.bridge.bytesPerTool} B/tool (${result.bridge.modelBytesPerTool} given to a model)`,
)
for (const p of peers)
  console.log(
    `${p.package}: ${p.tools} tools, ${p.bytesPerTool} B/tool; the ${p.sameTools.count} same tools: peer ${p.sameTools.peerBytesPerTool} B/tool, bridge ${p.sameTools.bridgeBytesPerTool} B/tool (given to a model: peer ${p.sameTools.peerModelBytesPerTool}, bridge ${p.sameTools.bridgeModelBytesPerTool})${p.mappedButNotListed ? `; mapped but not listed: ${p.mappedButNotListed.join(', ')}` : ''}`,
  )

// The published MCP servers the benchmarks set bridge beside (Playwright MCP, chrome-devtools-mcp):
// their pinned versions, their one install from npm into bench/tmp/peers, and their start over stdio
// with the MCP SDK client. bench/peers.mjs (their tools/list) and bench/agent/ (the agent's tasks)
// both take them from here, so both always measure the same builds.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const PEERS_DIR = join(root, 'bench/tmp/peers')

/** The peers as published: the package, its pinned version and the script that starts its server. */
export const PEERS = {
  playwright: { name: 'Playwright MCP', package: '@playwright/mcp', version: '0.0.83', bin: 'cli.js' },
  devtools: {
    name: 'chrome-devtools-mcp',
    package: 'chrome-devtools-mcp',
    version: '1.11.0',
    bin: 'build/src/bin/chrome-devtools-mcp.js',
  },
}

/** `package@version`, as npm installs it and the results name it. */
export const peerSpec = (peer) => `${peer.package}@${peer.version}`

/** The pinned version of `peer` is in PEERS_DIR already. */
function isInstalled(peer) {
  const file = join(PEERS_DIR, 'node_modules', peer.package, 'package.json')
  return existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).version === peer.version
}

/**
 * Installs the pinned peers into PEERS_DIR unless they are there at those versions already. No install
 * scripts: they bring no browser of their own (each is given Chromium's path, or launches none).
 * Returns the specs it installed (none when all were there).
 */
export function installPeers() {
  const peers = Object.values(PEERS)
  if (peers.every(isInstalled)) return []
  mkdirSync(PEERS_DIR, { recursive: true })
  const specs = peers.map(peerSpec)
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      PEERS_DIR,
      '--ignore-scripts',
      '--save-exact',
      '--no-audit',
      '--no-fund',
      ...specs,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const missing = peers.filter((peer) => !isInstalled(peer))
  if (missing.length) throw new Error(`npm did not install ${missing.map(peerSpec).join(', ')}`)
  return specs
}

/**
 * Starts `peer`'s server with `args` over stdio and connects the MCP SDK client to it. A throwaway
 * home (and working folder) and CI=1: nothing of the user's profile is read, no usage statistics are
 * sent. `close()` ends the server and removes that home.
 */
export async function connectPeer(peer, args, clientName = 'bridge-bench') {
  const home = mkdtempSync(join(tmpdir(), 'bridge-peer-'))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(PEERS_DIR, 'node_modules', peer.package, peer.bin), ...args],
    env: { PATH: process.env.PATH ?? '', HOME: home, CI: '1' },
    cwd: home,
    stderr: 'ignore',
  })
  const client = new Client({ name: clientName, version: '1.0.0' })
  const close = async () => {
    await client.close().catch(() => undefined)
    rmSync(home, { recursive: true, force: true })
  }
  try {
    await client.connect(transport)
  } catch (error) {
    await close()
    throw error
  }
  return { client, close }
}

// clients.json holds the tokens that open /mcp: whoever can write it can let any program in as an
// agent. Attack: a rogue local process makes the file writable by everyone (or hands it to another
// user) and adds a token of its own, while the daemon runs and before it starts. The daemon must
// never accept that token, and must refuse to start with the file like the other files it keeps.
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runDaemonToExit, startDaemon, tempConfigDir } from '../helpers/daemon'

const ROGUE_TOKEN = 'a'.repeat(64)
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** What another local program would do: open the file to everyone, then slip in its own client. */
function rogueAddsClient(file: string, mode: number): void {
  execFileSync(process.execPath, [
    '-e',
    `const fs = require('node:fs')
     const [file, mode, token] = process.argv.slice(1)
     fs.chmodSync(file, Number(mode))
     const data = JSON.parse(fs.readFileSync(file, 'utf8'))
     data.clients.push({ name: 'rogue', token, createdAt: new Date().toISOString() })
     fs.writeFileSync(file, JSON.stringify(data))`,
    file,
    String(mode),
    ROGUE_TOKEN,
  ])
}

const initialize = (url: string, token: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }),
  })

describe('clients.json that others could write', () => {
  it('a token added by a rogue process to a world-writable clients.json never opens /mcp of a running daemon', async () => {
    const configDir = tempConfigDir()
    dirs.push(configDir)
    const daemon = await startDaemon({ configDir })
    try {
      const file = join(configDir, 'clients.json')
      const own = (JSON.parse(readFileSync(file, 'utf8')) as { clients: Array<{ token: string }> })
        .clients[0]!.token
      rogueAddsClient(file, 0o666)
      const refused = await initialize(daemon.url, ROGUE_TOKEN)
      expect(refused.status).toBe(401)
      // The reload the CLI asks for after its own changes reads the file again: still refused.
      expect((await daemon.fetch('/reload', { method: 'POST' })).status).toBeLessThan(300)
      expect((await initialize(daemon.url, ROGUE_TOKEN)).status).toBe(401)
      await daemon.waitForOutput(/clients\.json is writable by other users \(mode 0666\)/)
      // The clients it knew keep working; the file is left as it is for the user to inspect.
      expect((await initialize(daemon.url, own)).status).toBe(200)
      expect(readFileSync(file, 'utf8')).toContain(ROGUE_TOKEN)
    } finally {
      await daemon.stop()
    }
  })

  it.each([
    ['writable by other users', 0o666, /is writable by other users \(mode 0666\)/],
    ['writable by its group', 0o620, /is writable by its group \(mode 0620\)/],
  ])(
    'refuses to start when clients.json is %s, naming the file and the fix',
    async (_what, mode, message) => {
      const configDir = tempConfigDir()
      dirs.push(configDir)
      await (await startDaemon({ configDir })).stop()
      const file = join(configDir, 'clients.json')
      rogueAddsClient(file, mode)
      const result = await runDaemonToExit({ configDir })
      expect(result.code).toBe(1)
      expect(result.output).toMatch(message)
      expect(result.output).toContain(file)
      expect(result.output).toContain(`Fix: \`chmod 600 ${file}\``)
    },
  )

  it('refuses to start when clients.json belongs to another user', async () => {
    if (process.getuid?.() !== 0) {
      // Only root can hand a file to another user; as anyone else the owner check is the uid test above.
      expect(process.getuid?.()).not.toBe(0)
      return
    }
    const configDir = tempConfigDir()
    dirs.push(configDir)
    await (await startDaemon({ configDir })).stop()
    const file = join(configDir, 'clients.json')
    chmodSync(file, 0o600)
    chownSync(file, 65534, 65534)
    const result = await runDaemonToExit({ configDir })
    expect(result.code).toBe(1)
    expect(result.output).toContain(`${file} belongs to another user (uid 65534`)
  })
})

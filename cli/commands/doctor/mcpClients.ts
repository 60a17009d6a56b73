/**
 * The configuration files of four MCP clients and whether each mentions bridge's `/mcp` URL (and the
 * current secret). Files are only read, never changed; the secret is never printed.
 */
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { pass, warnOf, type CheckResult } from './check'

interface McpClient {
  name: string
  files: string[]
}

export function knownMcpClients(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): McpClient[] {
  const home = homedir()
  const appSupport = join(home, 'Library', 'Application Support')
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config')
  const appData = env.APPDATA
  const userDirs = (app: string) => [
    join(appSupport, app),
    join(xdg, app),
    ...(appData ? [join(appData, app)] : []),
  ]
  return [
    {
      name: 'Claude Desktop',
      files: userDirs('Claude').map((dir) => join(dir, 'claude_desktop_config.json')),
    },
    { name: 'Claude Code', files: [join(home, '.claude.json'), join(cwd, '.mcp.json')] },
    { name: 'Cursor', files: [join(home, '.cursor', 'mcp.json'), join(cwd, '.cursor', 'mcp.json')] },
    {
      name: 'VS Code',
      files: [
        join(cwd, '.vscode', 'mcp.json'),
        ...userDirs('Code').flatMap((dir) => [
          join(dir, 'User', 'mcp.json'),
          join(dir, 'User', 'settings.json'),
        ]),
      ],
    },
  ]
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

export function checkMcpClients(port: number, secret: string | null, clients: McpClient[]): CheckResult[] {
  const urls = [`http://127.0.0.1:${port}/mcp`, `http://localhost:${port}/mcp`]
  const results: CheckResult[] = []
  let configured = 0
  for (const client of clients) {
    const found = client.files.filter((file) => existsSync(file))
    if (found.length === 0) continue
    const mentioning = found.find((file) => {
      const text = readText(file)
      return text !== null && urls.some((url) => text.includes(url))
    })
    if (!mentioning) {
      results.push(
        warnOf(
          `${client.name}: ${found.join(', ')} does not mention ${urls[0]}`,
          'add it: `bridge config show --show-secret` prints the configuration',
        ),
      )
      continue
    }
    configured++
    if (secret !== null && !(readText(mentioning) ?? '').includes(secret))
      results.push(
        warnOf(
          `${client.name}: ${mentioning} mentions ${urls[0]} but not the current secret`,
          'the secret was rotated? `bridge config show --show-secret` prints the new configuration',
        ),
      )
    else results.push(pass(`${client.name}: ${mentioning} is set up for ${urls[0]}`))
  }
  if (configured === 0)
    results.push(
      warnOf(
        `no MCP client configuration mentions ${urls[0]} (looked for ${clients.map((c) => c.name).join(', ')})`,
        '`bridge config show --show-secret` prints the configuration to add to your MCP client',
      ),
    )
  return results
}

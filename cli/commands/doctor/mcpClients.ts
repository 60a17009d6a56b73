/**
 * The configuration files of five MCP clients: whether each mentions bridge's `/mcp` URL with a current
 * client token, and a warning when one holds the auth.json secret (which opens every endpoint, the
 * extension's channel included; MCP clients get tokens of their own). Files are only read, never
 * changed; no token is ever printed.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync } from 'node:fs'
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
    { name: 'Windsurf', files: [join(home, '.codeium', 'windsurf', 'mcp_config.json')] },
    {
      name: 'Gemini CLI',
      files: [join(home, '.gemini', 'settings.json'), join(cwd, '.gemini', 'settings.json')],
    },
    { name: 'Codex', files: [join(env.CODEX_HOME || join(home, '.codex'), 'config.toml')] },
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

/** A regular file's text; null for anything else (a FIFO planted there is not waited on). */
function readText(path: string): string | null {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch {
    return null
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : null
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * A stdio entry that runs `bridge mcp` against this port (what `client add --for claude-desktop`
 * writes): it names no URL, the relay reaches the daemon on `BRIDGE_PORT`.
 */
function relaysTo(text: string, port: number): boolean {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return false
  }
  const servers = isRecord(parsed) && isRecord(parsed.mcpServers) ? Object.values(parsed.mcpServers) : []
  return servers.some(
    (entry) =>
      isRecord(entry) &&
      Array.isArray(entry.args) &&
      entry.args.at(-1) === 'mcp' &&
      isRecord(entry.env) &&
      entry.env.BRIDGE_PORT === String(port),
  )
}

export function checkMcpClients(
  port: number,
  secret: string | null,
  clients: McpClient[],
  clientTokens: readonly { name: string; token: string }[] = [],
): CheckResult[] {
  const urls = [`http://127.0.0.1:${port}/mcp`, `http://localhost:${port}/mcp`]
  const results: CheckResult[] = []
  let configured = 0
  for (const client of clients) {
    const found = client.files.filter((file) => existsSync(file))
    if (found.length === 0) continue
    for (const file of found)
      if (secret !== null && (readText(file) ?? '').includes(secret))
        results.push(
          warnOf(
            `${client.name}: ${file} holds bridge's auth.json secret, which also opens the extension's channel`,
            `give the client a token of its own: \`bridge client add <name> --for <client>\`, then remove the secret from ${file}`,
          ),
        )
    const mentioning = found.find((file) => {
      const text = readText(file)
      return text !== null && (urls.some((url) => text.includes(url)) || relaysTo(text, port))
    })
    if (!mentioning) {
      results.push(
        warnOf(
          `${client.name}: ${found.join(', ')} does not mention ${urls[0]}`,
          'add it: `bridge client add <name> --for <client>` writes the configuration',
        ),
      )
      continue
    }
    configured++
    const text = readText(mentioning) ?? ''
    const owner = clientTokens.find((c) => text.includes(c.token))
    if (owner)
      results.push(pass(`${client.name}: ${mentioning} is set up for ${urls[0]} (client "${owner.name}")`))
    else if (secret === null || !text.includes(secret))
      results.push(
        warnOf(
          `${client.name}: ${mentioning} mentions ${urls[0]} but no current client token`,
          'the client was removed? `bridge client list` shows the clients; `bridge client show <name> --show-secret` prints one',
        ),
      )
  }
  if (configured === 0)
    results.push(
      warnOf(
        `no MCP client configuration mentions ${urls[0]} (looked for ${clients.map((c) => c.name).join(', ')})`,
        '`bridge client add <name> --for <client>` writes the configuration of your MCP client',
      ),
    )
  return results
}

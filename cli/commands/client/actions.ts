/**
 * The `bridge client` subcommands. Each MCP client gets its own 256-bit token in clients.json (0600);
 * the token opens `/mcp` and nothing else. Removing a client tells a running daemon at once
 * (`POST /reload`, after the daemon proved itself), so the token stops working immediately.
 */
import { realpathSync } from 'node:fs'
import { ensurePrivateDir } from '../../../src/config/atomicWrite'
import { describeScope } from '../../../src/config/clientScopes'
import {
  addClient,
  parseOriginList,
  readClients,
  removeClient,
  setClientOrigins,
  setClientScope,
  setApprovalsInClient,
  type ClientEntry,
} from '../../../src/config/clients'
import { fail, say, sayWithSecret, warn } from '../../shared/output'
import { mcpClientConfig } from '../../shared/mcpConfig'
import {
  configContext,
  runningConfigContext,
  requestReload,
  runningDaemon,
  type ConfigContext,
} from '../config/context'
import {
  MCP_CLIENT_KINDS,
  isMcpClientKind,
  targetLabel,
  targetSnippet,
  writeClientConfig,
  type ServerEntryInput,
} from './forClient'
import { hasScopeFlags, scopeChangeOf, type ScopeFlags } from './scopeFlags'

export interface ClientFlags extends ScopeFlags {
  port?: unknown
  json?: boolean
  showSecret?: boolean
  confirm?: boolean
  for?: unknown
  /** `--reads` / `--writes`: the only origins the client may read from / write to (the data-flow guard). */
  reads?: unknown
  writes?: unknown
}

const SHOWN_TOKEN_CHARS = 8

export function addClientCommand(name: string, flags: ClientFlags): void {
  const kind =
    typeof flags.for === 'string'
      ? flags.for
      : flags.for === undefined
        ? undefined
        : JSON.stringify(flags.for)
  if (kind !== undefined && !isMcpClientKind(kind))
    return fail(`--for must be one of ${MCP_CLIENT_KINDS.join(', ')} (got "${kind}")`)
  const change = scopeChangeOf(flags)
  if (!change.ok) return fail(change.message)
  const origins: { reads?: string[]; writes?: string[] } = {}
  for (const key of ['reads', 'writes'] as const) {
    const value = flags[key]
    if (value === undefined) continue
    const parsed = parseOriginList(`--${key}`, typeof value === 'string' ? value : JSON.stringify(value))
    if (!parsed.ok) return fail(parsed.message)
    origins[key] = parsed.value
  }
  const context = configContext(flags)
  ensurePrivateDir(context.paths.dir)
  const scope = hasScopeFlags(flags) ? change.apply({}) : undefined
  // With --for, an existing client gets that program's configuration (its token, not a new one).
  const existing =
    kind === undefined ? undefined : readClients(context.paths.clientsFile).find((c) => c.name === name)
  const client = existing
    ? scope
      ? setClientScope(context.paths.clientsFile, name, change.apply)
      : existing
    : addClient(context.paths.clientsFile, name, new Date(), scope)
  if (origins.reads || origins.writes)
    Object.assign(client, setClientOrigins(context.paths.clientsFile, name, origins))
  if (flags.json && kind === undefined)
    return sayWithSecret(JSON.stringify({ ...client, mcpClientConfig: configOf(context, client) }, null, 2))
  say(
    existing
      ? `using the existing MCP client "${client.name}" (its token is unchanged)`
      : `created MCP client "${client.name}" in ${context.paths.clientsFile}`,
  )
  for (const line of describeScope(client.scope ?? {})) say(`  ${line}`)
  if (client.reads) say(`  reads only: ${client.reads.join(', ')}`)
  if (client.writes) say(`  writes only: ${client.writes.join(', ')}`)
  if (kind === undefined) {
    say('Its MCP configuration (this block holds its token; keep it private; it is printed only now,')
    say(`\`bridge client show ${client.name} --show-secret\` prints it again):`)
    sayWithSecret(mcpClientConfig(context.port, client.token))
    return
  }
  const input = entryInput(context, client)
  const written = writeClientConfig(kind, input)
  if (!written.ok) {
    fail(`${written.message}. Add this to it by hand (it holds the token; keep it private):`)
    sayWithSecret(targetSnippet(kind, input))
    return
  }
  say(
    `${written.replaced ? 'replaced' : 'added'} the MCP server "bridge" in ${targetLabel(kind)}'s ${written.file} ` +
      `(client "${client.name}", ${kind === 'claude-desktop' ? 'stdio through `bridge mcp`' : 'HTTP'})`,
  )
  if (written.backup) say(`the previous file is kept as ${written.backup}`)
  say(`restart ${targetLabel(kind)} (or reload its MCP servers) to use it`)
}

export function listClientsCommand(flags: ClientFlags): void {
  const { paths } = configContext(flags)
  const clients = readClients(paths.clientsFile)
  if (flags.json)
    return say(
      JSON.stringify(
        clients.map(({ name, createdAt, approvalsInClient }) => ({
          name,
          createdAt,
          approvalsInClient: approvalsInClient === true,
        })),
        null,
        2,
      ),
    )
  if (clients.length === 0) return say('no MCP clients yet: `bridge client add <name>` creates one')
  for (const client of clients)
    say(
      `${client.name.padEnd(32)}  created ${client.createdAt}${client.approvalsInClient ? '  approvals in the client' : ''}`,
    )
}

/** `bridge client approvals <name> on|off`: whether the client may also show its own approvals. */
export function approvalsCommand(name: string, value: string, flags: ClientFlags): void {
  if (value !== 'on' && value !== 'off') return fail(`approvals takes on or off (got "${value}")`)
  const { paths } = configContext(flags)
  if (!setApprovalsInClient(paths.clientsFile, name, value === 'on'))
    return fail(`no MCP client named "${name}" (\`bridge client list\`)`)
  if (value === 'off') {
    say(`approvals for "${name}" are asked in the side panel only`)
    return
  }
  say(`"${name}" may now also show its approvals itself: its calls of ask tools are put to you through it`)
  say(
    '(MCP elicitation, or an input_required result) as well as in the side panel; either place decides once.',
  )
  say('Turn this on only for a client you trust to show them faithfully: it could answer for you.')
}

export function showClientCommand(name: string, flags: ClientFlags): void {
  const context = configContext(flags)
  const client = readClients(context.paths.clientsFile).find((c) => c.name === name)
  if (!client) return fail(`no MCP client named "${name}" (\`bridge client list\`)`)
  if (flags.json) {
    const out = flags.showSecret
      ? { ...client, mcpClientConfig: configOf(context, client) }
      : {
          name: client.name,
          createdAt: client.createdAt,
          scope: client.scope ?? {},
          approvalsInClient: client.approvalsInClient === true,
          token: truncate(client.token),
        }
    return flags.showSecret ? sayWithSecret(JSON.stringify(out, null, 2)) : say(JSON.stringify(out, null, 2))
  }
  say(`name     ${client.name}`)
  say(`created  ${client.createdAt}`)
  say('may use')
  for (const line of describeScope(client.scope ?? {})) say(`  ${line}`)
  say(`approvals ${client.approvalsInClient ? 'in the client and in the side panel' : 'in the side panel'}`)
  if (!flags.showSecret) return say(`token    ${truncate(client.token)} (truncated; --show-secret prints it)`)
  sayWithSecret(`token    ${client.token}`)
  say('')
  say('MCP client configuration (holds the token; keep it private):')
  sayWithSecret(mcpClientConfig(context.port, client.token))
}

/** `bridge client set <name>`: changes what the client may use; a running daemon applies it at its next request. */
export function setClientCommand(name: string, flags: ClientFlags): void {
  if (!hasScopeFlags(flags))
    return fail('say what to change: --plugins, --sites, --builtins and/or --other-agent (see --help)')
  const change = scopeChangeOf(flags)
  if (!change.ok) return fail(change.message)
  const context = configContext(flags)
  const client = setClientScope(context.paths.clientsFile, name, change.apply)
  if (flags.json) return say(JSON.stringify({ name: client.name, scope: client.scope ?? {} }, null, 2))
  say(`MCP client "${client.name}" may now use:`)
  for (const line of describeScope(client.scope ?? {})) say(`  ${line}`)
  say('a running daemon applies it at the client’s next request')
}

export async function removeClientCommand(name: string, flags: ClientFlags): Promise<void> {
  const context = await runningConfigContext(flags)
  if (!flags.confirm) {
    return fail(
      `client remove deletes "${name}" and its token: every MCP client configured with it loses access at once. ` +
        `Nothing was changed; run \`bridge client remove ${name} --confirm\` to do it.`,
    )
  }
  const daemon = await runningDaemon(context)
  if (!removeClient(context.paths.clientsFile, name))
    return fail(`no MCP client named "${name}" (\`bridge client list\`)`)
  say(`removed MCP client "${name}" from ${context.paths.clientsFile}`)
  if (!daemon || context.secret === null) return
  const reloaded = await requestReload(context.port, context.secret)
  if (reloaded.ok) say('the running daemon no longer accepts its token')
  else
    warn(
      `the running daemon was not told (${reloaded.message}); it notices the change to clients.json within a second`,
    )
}

function configOf(context: ConfigContext, client: ClientEntry): unknown {
  return JSON.parse(mcpClientConfig(context.port, client.token)) as unknown
}

function entryInput(context: ConfigContext, client: ClientEntry): ServerEntryInput {
  return {
    port: context.port,
    token: client.token,
    nodePath: process.execPath,
    cliPath: realpathSync(process.argv[1] ?? ''),
  }
}

function truncate(token: string): string {
  return `${token.slice(0, SHOWN_TOKEN_CHARS)}…`
}

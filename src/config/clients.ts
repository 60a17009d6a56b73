/**
 * Named MCP clients and their tokens: `<config>/clients.json`, mode 0600, written atomically under
 * `clients.json.lock` (the CLI adds and removes, the daemon only reads).
 * `{ "clients": [{ "name": "default", "token": "<64 hex>", "createdAt": "<ISO date>" }] }`
 *
 * Tokens are kept as they are, like the secret in auth.json, not as hashes: `bridge client show
 * --show-secret` prints a client's token again, so the user can re-paste it after losing a client's
 * configuration. The file is 0600 in a 0700 directory; a process that can read it can read auth.json
 * too (see docs/security.md).
 */
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { Type, type Static } from '@sinclair/typebox'
import { BridgeError, BridgeErrorCode } from '../errors'
import { atomicWriteFile, enforceMode, removeStaleTempFiles } from './atomicWrite'
import { withFileLock } from './fileLock'
import { readPrivateFile } from './privateFiles'
import { validate } from '../validation'
import { ClientScope } from './clientScopes'

/** Client names: lowercase letters, digits and hyphens, up to 32 characters, not starting with a hyphen. */
export const CLIENT_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/
/** Names of the built-in roles (audit `client`) and of the built-in tool namespace. */
export const RESERVED_CLIENT_NAMES: readonly string[] = ['cli', 'extension', 'browser']
/** The client the first `bridge start` creates. */
export const DEFAULT_CLIENT = 'default'

export const ClientEntry = Type.Object(
  {
    name: Type.String({ pattern: CLIENT_NAME_PATTERN.source }),
    token: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    createdAt: Type.String(),
    /** What the client may use (./clientScopes); absent: every plugin, site and group, no other agent's tabs. */
    scope: Type.Optional(ClientScope),
    /**
     * The user trusts this client to show approvals itself: its `ask` calls are also put to the user
     * through the client (MCP elicitation, or an `input_required` result). Off unless set.
     */
    approvalsInClient: Type.Optional(Type.Boolean()),
    /**
     * The only origins the client may read from and write to (`bridge client add --reads --writes`,
     * the data-flow guard): a result from another origin is withheld, a call that would write to
     * another is refused. Absent: any.
     */
    reads: Type.Optional(Type.Array(Type.String({ maxLength: 2100 }), { maxItems: 100 })),
    writes: Type.Optional(Type.Array(Type.String({ maxLength: 2100 }), { maxItems: 100 })),
  },
  { additionalProperties: true },
)
export type ClientEntry = Static<typeof ClientEntry>

export const ClientsFile = Type.Object({ clients: Type.Array(ClientEntry) }, { additionalProperties: true })

/** Null when the name is usable, else why not. */
export function clientNameProblem(name: string): string | null {
  if (!CLIENT_NAME_PATTERN.test(name))
    return `"${name}" is not a client name: use 1-32 lowercase letters, digits and hyphens, starting with a letter or digit`
  if (RESERVED_CLIENT_NAMES.includes(name)) return `"${name}" is reserved; choose another client name`
  return null
}

/**
 * The clients on disk; none when the file does not exist. Throws BridgeError naming the file (never a
 * token), also when the file is a link or others could have written it (config_unsafe).
 */
export function readClients(path: string): ClientEntry[] {
  if (!existsSync(path)) return []
  // A file others could write (or a link) is refused before its tokens are read: see privateFiles.
  const text = readPrivateFile(path)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new BridgeError(BridgeErrorCode.authInvalid, `${path} is not valid JSON`, { cause: error })
  }
  const checked = validate(ClientsFile, parsed, 'the top level')
  if (!checked.ok)
    throw new BridgeError(
      BridgeErrorCode.authInvalid,
      `${path} must hold { "clients": [{ "name", "token": "<64 lowercase hex>", "createdAt" }] }: ${checked.message}`,
    )
  return checked.value.clients
}

function writeClients(path: string, clients: readonly ClientEntry[]): void {
  atomicWriteFile(path, `${JSON.stringify({ clients }, null, 2)}\n`)
}

/** Read, change, write under the lock. `change` returns the new list. */
function updateClients<T>(
  path: string,
  change: (clients: ClientEntry[]) => { clients: ClientEntry[]; result: T },
): T {
  return withFileLock(path, () => {
    removeStaleTempFiles(path)
    const { clients, result } = change(readClients(path))
    writeClients(path, clients)
    return result
  })
}

export function generateClientToken(): string {
  return randomBytes(32).toString('hex')
}

/** Creates a client with a fresh 256-bit token. Throws BridgeError when the name is bad or taken. */
export function addClient(
  path: string,
  name: string,
  now: Date = new Date(),
  scope?: ClientScope,
): ClientEntry {
  const problem = clientNameProblem(name)
  if (problem) throw new BridgeError(BridgeErrorCode.clientInvalid, problem)
  return updateClients(path, (clients) => {
    if (clients.some((c) => c.name === name))
      throw new BridgeError(
        BridgeErrorCode.clientExists,
        `a client named "${name}" already exists (\`bridge client show ${name}\`)`,
      )
    const entry: ClientEntry = {
      name,
      token: generateClientToken(),
      createdAt: now.toISOString(),
      ...(scope ? { scope } : {}),
    }
    return { clients: [...clients, entry], result: entry }
  })
}

/**
 * Changes a client's scope: `change` gets the current one (the default when none is stored) and
 * returns the new one. Throws BridgeError when there is no client by that name. The token stays.
 */
export function setClientScope(
  path: string,
  name: string,
  change: (scope: ClientScope) => ClientScope,
): ClientEntry {
  return updateClient(path, name, (current) => ({ ...current, scope: change(current.scope ?? {}) }))
}

/** Replaces the named client's entry by `change` of it, in one locked write; a missing name is an error. */
function updateClient(
  path: string,
  name: string,
  change: (current: ClientEntry) => ClientEntry,
): ClientEntry {
  return updateClients(path, (clients) => {
    const index = clients.findIndex((c) => c.name === name)
    const current = clients[index]
    if (!current)
      throw new BridgeError(
        BridgeErrorCode.clientInvalid,
        `no MCP client named "${name}" (\`bridge client list\`)`,
      )
    const next = change(current)
    return { clients: clients.map((c, i) => (i === index ? next : c)), result: next }
  })
}

/**
 * `--reads` / `--writes` (the data-flow guard): a list of origins (`https://mail.example.com`, comma
 * separated) read into its canonical origins, or why not.
 */
export function parseOriginList(
  flag: string,
  value: string,
): { ok: true; value: string[] } | { ok: false; message: string } {
  const origins: string[] = []
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    let origin: string | undefined
    try {
      const url = new URL(part)
      origin = /^https?:$/.test(url.protocol) && url.origin !== 'null' ? url.origin : undefined
    } catch {
      origin = undefined
    }
    if (!origin)
      return {
        ok: false,
        message: `${flag} takes origins such as https://mail.example.com (got "${part.slice(0, 200)}")`,
      }
    if (!origins.includes(origin)) origins.push(origin)
  }
  if (!origins.length) return { ok: false, message: `${flag} needs at least one origin` }
  return { ok: true, value: origins }
}

/** Sets the origins a client may read from and write to (the data-flow guard); an absent list stays as it is. */
export function setClientOrigins(
  path: string,
  name: string,
  origins: { reads?: string[]; writes?: string[] },
): ClientEntry {
  return updateClient(path, name, (current) => ({ ...current, ...origins }))
}

/** Turns approvals in the client on or off; false when there is no client by that name (nothing written). */
export function setApprovalsInClient(path: string, name: string, on: boolean): boolean {
  if (!readClients(path).some((c) => c.name === name)) return false
  return updateClients(path, (clients) => ({
    clients: clients.map((c) => {
      if (c.name !== name) return c
      const { approvalsInClient: _dropped, ...rest } = c
      return on ? { ...rest, approvalsInClient: true } : rest
    }),
    result: true,
  }))
}

/** Removes a client; false when there was none by that name (the file is left as it was). */
export function removeClient(path: string, name: string): boolean {
  if (!readClients(path).some((c) => c.name === name)) return false
  return updateClients(path, (clients) => ({
    clients: clients.filter((c) => c.name !== name),
    result: clients.some((c) => c.name === name),
  }))
}

/**
 * First run: creates clients.json with the `default` client. Once the file exists it is left alone, so
 * a user who removed `default` does not get it back on the next start. Enforces 0600 on an existing file.
 */
export function ensureClientsFile(path: string): { created: ClientEntry | null } {
  if (existsSync(path)) {
    enforceMode(path)
    return { created: null }
  }
  return withFileLock(path, () => {
    if (existsSync(path)) return { created: null }
    const client: ClientEntry = {
      name: DEFAULT_CLIENT,
      token: generateClientToken(),
      createdAt: new Date().toISOString(),
    }
    writeClients(path, [client])
    return { created: client }
  })
}

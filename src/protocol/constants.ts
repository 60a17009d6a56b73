/**
 * Constants shared by the daemon, the extension and the plugin SDK. Units are in the names.
 */

declare const __BRIDGE_VERSION__: string | undefined

/**
 * The npm package bridge is published as (package.json `name`): `npm i -g @bridge-mcp/bridge`,
 * `npx -y @bridge-mcp/bridge start`, and what `bridge update` installs. The bare name `bridge` on the
 * registry is someone else's.
 */
export const BRIDGE_PACKAGE_NAME = '@bridge-mcp/bridge'
/**
 * The CLI's second name on PATH (the package's `bin`), the same program as `bridge`: iproute2 ships a
 * `/usr/sbin/bridge` on Debian and Ubuntu that can come first in PATH.
 */
export const BRIDGE_ALIAS_COMMAND = 'bridge-mcp'
/**
 * How this project's published package.json identifies itself: `"bridge": { "role": "cli" }`.
 * `bridge update` installs only a package whose registry metadata carries it.
 */
export const BRIDGE_PACKAGE_ROLE = 'cli'
/** Version of bridge (daemon, CLI and extension ship together). Injected at build time. */
export const BRIDGE_VERSION: string =
  typeof __BRIDGE_VERSION__ === 'string' ? __BRIDGE_VERSION__ : '0.0.0-dev'
/** Version of the plugin SDK contract (tools.json shape and adapter runtime). */
export const SDK_VERSION = '1.0.0'
/** Version of the WebSocket protocol between daemon and extension; sent in `sync.full`. */
export const PROTOCOL_VERSION = 1
/** Version of the daemon's internal state layout, reported in /health. */
export const STATE_SCHEMA_VERSION = 1

export const DEFAULT_PORT = 9515
export const LOOPBACK_HOST = '127.0.0.1'

/** Subprotocol the extension offers first in `Sec-WebSocket-Protocol: bridge, <secret>`. */
export const WS_SUBPROTOCOL = 'bridge'
export const WS_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024
export const HTTP_MAX_BODY_BYTES = 10 * 1024 * 1024

export const TOOL_TIMEOUT_MS = 30_000
export const TOOL_MAX_DURATION_MS = 5 * 60_000
export const APPROVAL_TIMEOUT_MS = 5 * 60_000
export const APPROVAL_PROGRESS_INTERVAL_MS = 10_000
export const READY_PROBE_TIMEOUT_MS = 5_000
export const PAGE_FETCH_TIMEOUT_MS = 30_000
export const MAX_CALLS_IN_FLIGHT_PER_PLUGIN = 5
/** Calls of one MCP client waiting for the user's approval at once; the next fails with approval_queue_full. */
export const MAX_APPROVALS_WAITING_PER_CLIENT = 20
/** Tool arguments nested deeper than this are invalid_input, before schema validation. */
export const MAX_INPUT_DEPTH = 64
export const TOOL_RESULT_MAX_BYTES = 100 * 1024

export const AUDIT_BUFFER_SIZE = 500
export const AUDIT_LOG_ROTATE_BYTES = 10 * 1024 * 1024
export const AUDIT_DEFAULT_LIMIT = 50

export const ADMIN_RATE_LIMIT_PER_MIN = 10
export const SESSION_RATE_LIMIT_PER_MIN = 5
/**
 * Beyond the 5, sessions a client may open a minute in place of its own that ended: closed with
 * DELETE, or left (its event stream closed, nothing running). A client that opens one short session
 * per command (the MCP Inspector's CLI) is not refused on its sixth command; open sessions stay bounded.
 */
export const ENDED_SESSION_RATE_LIMIT_PER_MIN = 30

/**
 * The MCP protocol revisions `/mcp` speaks, newest first. A client asking for another gets the newest;
 * a request whose `MCP-Protocol-Version` header names another is refused.
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
]
/** Open MCP sessions kept at most; a new one beyond it closes the session idle the longest. */
export const MCP_MAX_SESSIONS = 100
export const RATE_LIMIT_WINDOW_MS = 60_000

export const RECONNECT_BACKOFF_START_MS = 1_000
export const RECONNECT_BACKOFF_MAX_MS = 30_000

export const SECRET_HEX_LENGTH = 64

/**
 * The daemon proves it knows the secret before anyone sends it: `GET /proof?nonce=<64 hex>` (no token)
 * answers `{ proof: hex(HMAC-SHA256(secret, PROOF_CONTEXT + nonce)) }`. The extension and the CLI check
 * it with a fresh random nonce, so a program squatting on the port learns nothing it could replay.
 */
export const PROOF_PATH = '/proof'
export const PROOF_CONTEXT = 'bridge-proof:'
export const PROOF_NONCE_PATTERN = /^[0-9a-f]{64}$/
/** Proof requests a minute per kind of caller without the secret (the extension's Origin, any other). */
export const PROOF_RATE_LIMIT_PER_MIN = 120
/**
 * A caller that holds the secret adds `&caller=hex(HMAC-SHA256(secret, PROOF_CALLER_CONTEXT + nonce))`:
 * the daemon then answers without counting it, so processes that flood `/proof` without the secret
 * cannot make the CLI or the extension wait. Each nonce opens this way once.
 */
export const PROOF_CALLER_CONTEXT = 'bridge-caller:'
/**
 * The extension adds `&from=extension` (its service worker's requests carry no Origin header): the
 * daemon records when the extension last asked with its secret or with another, for `bridge doctor`.
 */
export const PROOF_FROM_EXTENSION = 'from=extension'

/** Plugin names: lowercase alphanumeric segments joined by single hyphens. */
export const PLUGIN_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/
/** Plugin packages are named `bridge-plugin-<name>` or `@<scope>/bridge-plugin-<name>`. */
export const PLUGIN_PACKAGE_PREFIX = 'bridge-plugin-'

/** The plugin name a package name carries: without its scope and `bridge-plugin-`. */
export function pluginNameFromPackage(packageName: string): string {
  const bare = packageName.startsWith('@') ? packageName.slice(packageName.indexOf('/') + 1) : packageName
  return bare.startsWith(PLUGIN_PACKAGE_PREFIX) ? bare.slice(PLUGIN_PACKAGE_PREFIX.length) : bare
}
/** Names a plugin may not take: built-in tool namespaces and words that would confuse users. */
export const RESERVED_PLUGIN_NAMES: readonly string[] = [
  'browser',
  'extension',
  'bridge',
  'system',
  'config',
  'mcp',
  'workflow',
]
/** Base tool names (without the plugin prefix). */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/
/** Pseudo-plugin that owns the built-in `browser_*` and `extension_*` tools in permissions and audit. */
export const BROWSER_PLUGIN = 'browser'

/**
 * The extension's public key (manifest `key`). It fixes the extension id, so the daemon can pin the
 * one Origin it accepts: `chrome-extension://${EXTENSION_ID}`.
 */
export const EXTENSION_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuhfnQEoR6mms24D6bqcVtg+3eLP/gGwBnvFLMjIAVifJifRZ6dcv7WmHX6T8tDC6ejoslaWaw27jInd5+78TnUcxxY7YbC1MNlKXIRvbpvTwpVGWEYhNa6G+d6TWbLf1VjUlOqTg9JrNAG9z9fow4s/OBN55tcYnHOoI6TUFHxh4rBkGxMnYq6fKqiWawYugNPzclzNJZ69y4o7QKl6Rh2cRjAKpE57s8KC7DL8pMUWv/g/hlKK0mpj43wT7KwAQt3j6+7Xxz70wssoWXatBKaQXcjT1sOtHzApmX/f+DycpN0Sra+86ID6GjaiGwxBLJdB8SGx0ZEO1eoAZGYAFRwIDAQAB'
export const EXTENSION_ID = 'acfdhdlkhjaeoaphklaaombmbgodghoh'
export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}`

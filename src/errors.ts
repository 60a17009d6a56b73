/**
 * The daemon's one error class. `code` is a stable snake_case string from `BridgeErrorCode`; the
 * message is for humans and never contains a secret. HTTP codes map to statuses in the front.
 */
import { HttpErrorCode } from './protocol/errors'

export const BridgeErrorCode = {
  ...HttpErrorCode,
  configUnparseable: 'config_unparseable',
  configInvalid: 'config_invalid',
  configLocked: 'config_locked',
  diskWriteFailed: 'disk_write_failed',
  /** The config directory or one of its files is another user's, writable by others, or a link. */
  configUnsafe: 'config_unsafe',
  authInvalid: 'auth_invalid',
  clientInvalid: 'client_invalid',
  clientExists: 'client_exists',
  portInUse: 'port_in_use',
  /** Another daemon holds the config folder's lock (src/config/daemonLock.ts). */
  daemonRunning: 'daemon_running',
  engineUnavailable: 'engine_unavailable',
  inspectUnavailable: 'inspect_unavailable',
  pluginNameInvalid: 'plugin_name_invalid',
  pluginNotFound: 'plugin_not_found',
  pluginInvalid: 'plugin_invalid',
  npmFailed: 'npm_failed',
  registryUnreachable: 'registry_unreachable',
} as const
export type BridgeErrorCode = (typeof BridgeErrorCode)[keyof typeof BridgeErrorCode]

export class BridgeError extends Error {
  override readonly name = 'BridgeError'
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export function isBridgeError(value: unknown, code?: BridgeErrorCode): value is BridgeError {
  return value instanceof BridgeError && (code === undefined || value.code === code)
}

/**
 * The shared secret in `<config>/extension/auth.json`: `{ "secret": "<64 hex>" }`, mode 0600. It is
 * generated on first start. A file that exists but is broken is reported, not silently replaced:
 * replacing it would lock out every configured MCP client without telling the user why.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { BridgeError, BridgeErrorCode } from '../errors'
import { atomicWriteFile, enforceMode } from './atomicWrite'
import { AuthFile } from './schema'
import { validate } from '../validation'

export function generateSecret(): string {
  return randomBytes(32).toString('hex')
}

/** Reads the secret; throws BridgeError `auth_invalid` naming the file (never the secret). */
export function readSecret(path: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new BridgeError(
      BridgeErrorCode.authInvalid,
      `${path} is not valid JSON. Delete it to generate a new secret (MCP clients then need the new one).`,
      { cause: error },
    )
  }
  const checked = validate(AuthFile, parsed, 'the top level')
  if (!checked.ok)
    throw new BridgeError(
      BridgeErrorCode.authInvalid,
      `${path} must hold { "secret": "<64 lowercase hex characters>" }. Delete it to generate a new secret.`,
    )
  return checked.value.secret
}

export function writeSecret(path: string, secret: string): void {
  atomicWriteFile(path, `${JSON.stringify({ secret }, null, 2)}\n`)
}

/** Returns the secret, generating auth.json on first run. Enforces mode 0600 on an existing file. */
export function ensureSecret(path: string): { secret: string; created: boolean } {
  if (!existsSync(path)) {
    const secret = generateSecret()
    writeSecret(path, secret)
    return { secret, created: true }
  }
  enforceMode(path)
  return { secret: readSecret(path), created: false }
}

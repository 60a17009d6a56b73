/**
 * The audit log's signing key: Ed25519, in `<config>/audit.key` (PKCS#8 PEM, mode 0600, written
 * atomically, read only when private). Made on first use. The private key never leaves this module:
 * callers get a `sign` function and the public key, and nothing here logs either.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { atomicWriteFile } from '../config/atomicWrite'
import { readPrivateFile } from '../config/privateFiles'
import { log } from '../log'
import { checkpointMessage, type AuditCheckpoint } from '../protocol/auditProof'

const logger = log.withTag('audit')

export const AUDIT_KEY_FILE = 'audit.key'

export interface AuditSigner {
  /** The public key, base64 of its 32 raw bytes (as checkpoints name it). */
  readonly publicKey: string
  /** Signs the checkpoint of `size` entries with root `root` (hex), at `time`. */
  checkpoint(size: number, root: string, time?: Date): AuditCheckpoint
}

/** The key in `dir`, made (atomically, 0600) when there is none or it cannot be read as a key. */
export function loadOrCreateAuditKey(dir: string): AuditSigner {
  const path = join(dir, AUDIT_KEY_FILE)
  let key: KeyObject | undefined
  if (existsSync(path)) {
    try {
      key = createPrivateKey(readPrivateFile(path))
      if (key.asymmetricKeyType !== 'ed25519') key = undefined
    } catch (error) {
      // A private file with the wrong owner or mode is refused outright (readPrivateFile's error).
      if ((error as { code?: string }).code === 'config_unsafe') throw error
      key = undefined
    }
    if (!key) logger.warn(`${path} holds no Ed25519 key; a new key signs the audit log from now on`)
  }
  if (!key) {
    key = generateKeyPairSync('ed25519').privateKey
    atomicWriteFile(path, key.export({ format: 'pem', type: 'pkcs8' }))
  }
  return signerOf(key)
}

/** The signer for an existing key only (for `bridge audit checkpoint` without a daemon); undefined when there is none. */
export function readAuditKey(dir: string): AuditSigner | undefined {
  const path = join(dir, AUDIT_KEY_FILE)
  if (!existsSync(path)) return undefined
  return signerOf(createPrivateKey(readPrivateFile(path)))
}

function signerOf(privateKey: KeyObject): AuditSigner {
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32)
  const publicKey = raw.toString('base64')
  return {
    publicKey,
    checkpoint(size, root, time = new Date()) {
      const unsigned = { size, root, time: time.toISOString() }
      const signature = sign(null, checkpointMessage(unsigned), privateKey).toString('base64')
      return { ...unsigned, key: publicKey, signature }
    },
  }
}

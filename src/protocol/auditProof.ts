/**
 * The verifiable audit log's checks, shared by the daemon's CLI and the extension (its witness): RFC
 * 6962 hashing (SHA-256, leaf prefix 0x00, node prefix 0x01), inclusion and consistency proof
 * verification (the algorithms of RFC 9162 section 2.1.3.2 and 2.1.4.2), and signed checkpoints
 * (tree size, root hash, time) under an Ed25519 key. WebCrypto only (`crypto.subtle`), no node:*:
 * the extension checks the daemon's proofs itself with this code.
 */

/** One signed head of the audit tree, as `/audit/checkpoint` and `bridge audit checkpoint` give it. */
export interface AuditCheckpoint {
  /** Number of entries (leaves) in the tree. */
  size: number
  /** The tree's root hash, lowercase hex (64 characters). */
  root: string
  /** ISO 8601 time of signing. */
  time: string
  /** The signer's Ed25519 public key, base64 of its 32 raw bytes. */
  key: string
  /** Ed25519 signature over `checkpointMessage(...)`, base64. */
  signature: string
}

/** `/audit/consistency?from=<size>`: the current checkpoint and the proof that it extends the tree of `from` entries. */
export interface AuditConsistency {
  checkpoint: AuditCheckpoint
  from: number
  /** Hex hashes of RFC 6962's PROOF(from, D[checkpoint.size]). */
  proof: string[]
  /**
   * The daemon found the files holding other than what it wrote (the last time since it started): the
   * checkpoint signs the files as they are, so a whole line another process appended after the
   * witness's last checkpoint extends the tree it kept, and only this says it was not the daemon's.
   */
  changed?: AuditChange
}

/** When the daemon last found the audit files changed by something else, and how many entries each side had. */
export interface AuditChange {
  /** ISO time the daemon found it. */
  at: string
  entriesOnDisk: number
  entriesWritten: number
}

/** Whether `value` has an AuditChange's shape. */
export function isAuditChange(value: unknown): value is AuditChange {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    typeof v.at === 'string' &&
    v.at.length <= 40 &&
    Number.isSafeInteger(v.entriesOnDisk) &&
    Number.isSafeInteger(v.entriesWritten)
  )
}

/**
 * `new_key`: signed by another key; `truncated`: fewer entries than before; `rewritten`: entries seen
 * before changed or went; `changed`: the tree extends the one seen before, but the daemon found entries
 * in the files that it did not write.
 */
export type WitnessProblem = 'new_key' | 'truncated' | 'rewritten' | 'changed'

/** What a witness concluded from a stored checkpoint, the current one and the proof between them. */
export type WitnessVerdict =
  | { ok: true }
  | {
      ok: false
      /**
       * `new_key`: signed by another key; `truncated`: fewer entries than before; `rewritten`: the
       * entries the stored checkpoint covered are not the first ones of today's tree (or a signature
       * does not hold).
       */
      problem: WitnessProblem
      detail: string
    }

const CHECKPOINT_HEADER = 'bridge audit checkpoint v1'

/** The exact bytes a checkpoint's signature covers. */
export function checkpointMessage(checkpoint: Pick<AuditCheckpoint, 'size' | 'root' | 'time'>): Uint8Array {
  return new TextEncoder().encode(
    `${CHECKPOINT_HEADER}\n${checkpoint.size}\n${checkpoint.root}\n${checkpoint.time}\n`,
  )
}

/** Whether `value` has a checkpoint's shape (not whether its signature holds). */
export function isAuditCheckpoint(value: unknown): value is AuditCheckpoint {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    typeof v.size === 'number' &&
    Number.isSafeInteger(v.size) &&
    v.size >= 0 &&
    typeof v.root === 'string' &&
    /^[0-9a-f]{64}$/.test(v.root) &&
    typeof v.time === 'string' &&
    typeof v.key === 'string' &&
    typeof v.signature === 'string'
  )
}

/** Whether the checkpoint's signature holds under the key it names. */
export async function verifyCheckpointSignature(checkpoint: AuditCheckpoint): Promise<boolean> {
  try {
    const raw = fromBase64(checkpoint.key)
    const signature = fromBase64(checkpoint.signature)
    if (raw.length !== 32 || signature.length !== 64) return false
    const key = await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify'])
    return await crypto.subtle.verify(
      { name: 'Ed25519' },
      key,
      signature,
      asBufferSource(checkpointMessage(checkpoint)),
    )
  } catch {
    return false
  }
}

/**
 * The witness's check: `current` (with `proof` from `stored.size`) must be signed by the key that
 * signed `stored`, be at least as big, and extend it. `lastGood` is not decided here: the caller
 * keeps the time of its last good check.
 */
export async function checkWitness(
  stored: AuditCheckpoint,
  current: AuditConsistency,
): Promise<WitnessVerdict> {
  const next = current.checkpoint
  if (!(await verifyCheckpointSignature(next)))
    return { ok: false, problem: 'rewritten', detail: 'the daemon’s checkpoint has no valid signature' }
  if (next.key !== stored.key)
    return { ok: false, problem: 'new_key', detail: 'the audit log is now signed by a different key' }
  if (next.size < stored.size)
    return {
      ok: false,
      problem: 'truncated',
      detail: `the audit log has ${next.size} entries, ${stored.size - next.size} fewer than the ${stored.size} seen before`,
    }
  if (current.from !== stored.size)
    return { ok: false, problem: 'rewritten', detail: 'the daemon answered for another tree size' }
  const ok = await verifyConsistency(
    stored.size,
    next.size,
    fromHex(stored.root),
    fromHex(next.root),
    current.proof.map(fromHex),
  )
  return ok
    ? { ok: true }
    : {
        ok: false,
        problem: 'rewritten',
        detail: `the first ${stored.size} entries are not the ones seen before`,
      }
}

export async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', asBufferSource(bytes)))
}

/** WebCrypto's types want an ArrayBuffer-backed view; Node's Buffers are typed more loosely. */
const asBufferSource = (bytes: Uint8Array): Uint8Array<ArrayBuffer> => bytes as Uint8Array<ArrayBuffer>

/** RFC 6962 leaf hash: SHA-256(0x00 || data). */
export async function leafHash(data: Uint8Array): Promise<Uint8Array> {
  const input = new Uint8Array(data.length + 1)
  input.set(data, 1)
  return sha256(input)
}

/** RFC 6962 interior node hash: SHA-256(0x01 || left || right). */
export async function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  const input = new Uint8Array(1 + left.length + right.length)
  input[0] = 1
  input.set(left, 1)
  input.set(right, 1 + left.length)
  return sha256(input)
}

/**
 * Verifies that `proof` shows the leaf `leaf` (its leaf hash) at `index` in the tree of `size` leaves
 * with root `root` (RFC 9162, 2.1.3.2). Sizes are plain numbers: halving is done by division, not
 * by 32-bit shifts.
 */
export async function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Promise<boolean> {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false
  let fn = index
  let sn = size - 1
  let r = leaf
  for (const p of proof) {
    if (p.length !== 32 || sn === 0) return false
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r)
      if (fn % 2 === 0) [fn, sn] = climbWhileEven(fn, sn)
    } else {
      r = await nodeHash(r, p)
    }
    fn = half(fn)
    sn = half(sn)
  }
  return sn === 0 && equalBytes(r, root)
}

/** RFC 9162's "right-shift fn and sn until fn is odd or zero" (at least once), shared by both checks. */
function climbWhileEven(fn: number, sn: number): [number, number] {
  do {
    fn = half(fn)
    sn = half(sn)
  } while (fn % 2 === 0 && fn !== 0)
  return [fn, sn]
}

/**
 * Verifies that `proof` shows the tree of `size1` leaves with root `root1` to be the first `size1`
 * leaves of the tree of `size2` leaves with root `root2` (RFC 9162, 2.1.4.2). An empty old tree is
 * consistent with any tree.
 */
export async function verifyConsistency(
  size1: number,
  size2: number,
  root1: Uint8Array,
  root2: Uint8Array,
  proof: readonly Uint8Array[],
): Promise<boolean> {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0 || size2 < size1) return false
  if (size1 === size2) return proof.length === 0 && equalBytes(root1, root2)
  if (size1 === 0) return proof.length === 0
  if (proof.length === 0 || proof.some((p) => p.length !== 32)) return false
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof]
  let fn = size1 - 1
  let sn = size2 - 1
  while (fn % 2 === 1) {
    fn = half(fn)
    sn = half(sn)
  }
  let fr = path[0]!
  let sr = path[0]!
  for (const c of path.slice(1)) {
    if (sn === 0) return false
    if (fn % 2 === 1 || fn === sn) {
      fr = await nodeHash(c, fr)
      sr = await nodeHash(c, sr)
      if (fn % 2 === 0) [fn, sn] = climbWhileEven(fn, sn)
    } else {
      sr = await nodeHash(sr, c)
    }
    fn = half(fn)
    sn = half(sn)
  }
  return sn === 0 && equalBytes(fr, root1) && equalBytes(sr, root2)
}

const half = (n: number): number => Math.floor(n / 2)
const isPowerOfTwo = (n: number): boolean => n > 0 && 2 ** Math.floor(Math.log2(n)) === n

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

export function toHex(bytes: Uint8Array): string {
  let out = ''
  for (const b of bytes) out += b.toString(16).padStart(2, '0')
  return out
}

/** Hex to bytes; anything that is not even-length lowercase or uppercase hex gives an empty array. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return new Uint8Array(0)
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  return out
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text)
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}

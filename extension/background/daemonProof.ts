/**
 * Before the extension sends the secret anywhere it makes the server on the port prove it knows it:
 * `GET /proof?nonce=<fresh random 64 hex>` (no credential) must answer
 * `{ proof: hex(HMAC-SHA256(secret, "bridge-proof:" + nonce)) }`. A program squatting on the port while
 * the daemon is down gets a random nonce and nothing else; the extension keeps retrying with its backoff.
 * `&caller=hex(HMAC-SHA256(secret, "bridge-caller:" + nonce))` tells the daemon this caller holds the
 * secret, so processes flooding `/proof` without it cannot spend the extension's turn (a squatter gets
 * an HMAC of a random nonce it can do nothing with). A 429 is `busy`: try again, never "impostor".
 */
import {
  PROOF_CALLER_CONTEXT,
  PROOF_CONTEXT,
  PROOF_FROM_EXTENSION,
  PROOF_PATH,
} from '../../src/protocol/constants'

export type ProofOutcome = 'proven' | 'unreachable' | 'busy' | 'impostor'

const PROOF_TIMEOUT_MS = 3_000

const toHex = (bytes: ArrayBuffer | Uint8Array): string =>
  Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('')

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

export async function proveDaemon(baseUrl: string, secret: string): Promise<ProofOutcome> {
  const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)))
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  )
  const caller = toHex(
    await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${PROOF_CALLER_CONTEXT}${nonce}`)),
  )
  let res: Response
  try {
    res = await fetch(`${baseUrl}${PROOF_PATH}?nonce=${nonce}&caller=${caller}&${PROOF_FROM_EXTENSION}`, {
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
      signal: AbortSignal.timeout(PROOF_TIMEOUT_MS),
    })
  } catch {
    return 'unreachable'
  }
  const body = (await res.json().catch(() => null)) as { proof?: unknown } | null
  if (res.status === 429) return 'busy'
  const proof = body?.proof
  if (res.status !== 200 || typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return 'impostor'
  // verify() compares in constant time.
  const valid = await crypto.subtle.verify(
    'HMAC',
    key,
    fromHex(proof),
    new TextEncoder().encode(`${PROOF_CONTEXT}${nonce}`),
  )
  return valid ? 'proven' : 'impostor'
}

/**
 * Helpers both engines share: the request URL (built from the bound address, never from the Host
 * header), and a byte counter for request bodies.
 */
import { LOOPBACK_HOST } from '../protocol/constants'

export function requestUrl(port: number, pathAndQuery: string): string {
  const path = pathAndQuery.startsWith('/') ? pathAndQuery : `/${pathAndQuery}`
  return `http://${LOOPBACK_HOST}:${port}${path}`
}

/** Methods a Web Request can carry. Others (TRACE, CONNECT, WebDAV, lower-case spellings) never reach the front. */
const SUPPORTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])

export function isSupportedMethod(method: string): boolean {
  return SUPPORTED_METHODS.has(method)
}

/** Methods whose requests carry no body in the Fetch API. */
export function mayHaveBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD'
}

/** Counts body bytes; `add` returns false once the total passes the cap. */
export function createBodyCounter(maxBytes: number): { add(bytes: number): boolean } {
  let total = 0
  return {
    add(bytes) {
      total += bytes
      return total <= maxBytes
    },
  }
}

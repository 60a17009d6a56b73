import { describe, expect, it } from 'vitest'
import { ANSWER_HANDLING_MS, RequestWatch } from '../../../../extension/builtins/requestWatch'

const ORIGIN = 'http://127.0.0.1:8080'
const sent = (requestId: string, method: string, path: string, type = 'Fetch') =>
  ['Network.requestWillBeSent', { requestId, type, request: { method, url: ORIGIN + path } }] as const
const answered = (requestId: string, path: string, mimeType = 'application/json') =>
  ['Network.responseReceived', { requestId, response: { url: ORIGIN + path, mimeType } }] as const
const finished = (requestId: string) => ['Network.loadingFinished', { requestId }] as const

function watch(now = { ms: 0 }) {
  const w = new RequestWatch(() => now.ms)
  return {
    w,
    feed: (...events: (readonly [string, Record<string, unknown>])[]) =>
      events.forEach(([m, p]) => w.onEvent(m, p)),
  }
}

describe('RequestWatch', () => {
  it('holds the wait for a request the action started until the page had time to handle its answer, named by method and path only', () => {
    const now = { ms: 0 }
    const { w, feed } = watch(now)
    feed(sent('1', 'POST', '/api/read?token=secret'))
    expect(w.holding()).toEqual(['POST /api/read'])
    feed(answered('1', '/api/read'), finished('1'))
    // The page parses the answer and changes the DOM after the network is done.
    expect(w.holding()).toEqual(['POST /api/read'])
    now.ms = ANSWER_HANDLING_MS
    expect(w.holding()).toEqual([])
  })

  it('does not wait for a long poll the page re-opens after its earlier poll answered during the action', () => {
    const now = { ms: 0 }
    const { w, feed } = watch(now)
    feed(sent('1', 'POST', '/api/read'), answered('1', '/api/read'), finished('1'))
    now.ms = ANSWER_HANDLING_MS
    // The poll opened before the action answers (never seen starting), and the page opens the next one.
    feed(answered('0', '/api/unread'), finished('0'), sent('2', 'GET', '/api/unread'))
    expect(w.holding()).toEqual([])
  })

  it('lets a streamed response go once its headers are in, and any body a second after its headers', () => {
    const now = { ms: 0 }
    const { w, feed } = watch(now)
    feed(sent('1', 'GET', '/events'), answered('1', '/events', 'text/event-stream'))
    feed(sent('2', 'GET', '/big'), answered('2', '/big', 'application/octet-stream'))
    expect(w.holding()).toEqual(['GET /big'])
    now.ms = 1_000
    expect(w.holding()).toEqual([])
  })

  it("never waits for the browser's fetch of the site's icon, but does for a page's own request of it", () => {
    const { w, feed } = watch()
    feed(sent('1', 'GET', '/favicon.ico', 'Other'))
    expect(w.holding()).toEqual([])
    feed(sent('2', 'GET', '/favicon.ico', 'Fetch'))
    expect(w.holding()).toEqual(['GET /favicon.ico'])
  })

  it('never waits for event sources, sockets and beacons, and keeps one entry through a redirect', () => {
    const now = { ms: 0 }
    const { w, feed } = watch(now)
    feed(sent('1', 'GET', '/sse', 'EventSource'), sent('2', 'POST', '/beacon', 'Ping'))
    expect(w.holding()).toEqual([])
    feed(sent('3', 'GET', '/old'), sent('3', 'GET', '/new'))
    expect(w.holding()).toEqual(['GET /old'])
    feed(finished('3'))
    now.ms = ANSWER_HANDLING_MS
    expect(w.holding()).toEqual([])
  })
})

// The results the data-flow guard's benches hand out (bench/flowGuard.mjs in the daemon,
// bench/flowGuardScan.mjs standalone): a 100 KB snapshot and a 1 MB network capture, a new one per seed.
export const ORIGIN = 'https://mail.example.com'

/** Deterministic words, addresses, long numbers and tokens: a page's mix, never the same run twice over. */
export function textSource(seed) {
  let x = seed
  // 32-bit arithmetic (a float product would lose the low bits and fall into a short cycle); the high bits.
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8
  const WORDS =
    'the of and to a in for is on that by this with you it not or be are from at as your all have new more an was we will home can us about if page my has search free but our one other do no information time they site he up may what which their news out use any there see only so his when contact here business who web also now help get pm view online first am been would how were me services some these click its like service than find'.split(
      ' ',
    )
  const word = () => WORDS[next() % WORDS.length]
  const token = () => `tok_${next().toString(36)}${next().toString(36)}${next().toString(36)}`
  return {
    sentence: (n) => Array.from({ length: n }, word).join(' '),
    email: () => `${word()}.${word()}${next() % 100}@corp.example`,
    number: () => String(4000_0000_0000_0000 + (next() % 1_000_000_000)),
    token,
  }
}

/** A snapshot of `bytes` characters: lines of links, headings and text, with addresses and ids among them. */
export function snapshotOf(bytes, seed = 7) {
  const src = textSource(seed)
  const lines = []
  let size = 0
  for (let ref = 1; size < bytes; ref++) {
    const line =
      ref % 7 === 0
        ? `- link "${src.sentence(4)}" [ref=e${ref}]: /message/${src.token()}`
        : ref % 11 === 0
          ? `- text: From ${src.email()}, account ${src.number()}`
          : `- paragraph [ref=e${ref}]: ${src.sentence(18)}`
    lines.push(line)
    size += line.length + 1
  }
  return lines.join('\n').slice(0, bytes)
}

/** A network capture of about `bytes` of JSON (browser_network_requests): requests with their headers. */
export function captureOf(bytes, seed = 11) {
  const src = textSource(seed)
  const requests = []
  let size = 0
  for (let id = 1; size < bytes; id++) {
    const request = {
      id: String(id),
      method: id % 5 === 0 ? 'POST' : 'GET',
      url: `${ORIGIN}/api/messages/${src.token()}?q=${encodeURIComponent(src.sentence(3))}`,
      type: 'Fetch',
      status: 200,
      statusText: 'OK',
      mimeType: 'application/json',
      failed: false,
      errorText: null,
      encodedDataLength: 1000 + id,
      startedAt: 1_700_000_000_000 + id,
      durationMs: 20,
      requestHeaders: { accept: 'application/json', 'x-request-id': src.token(), 'x-user': src.email() },
      responseHeaders: {
        'content-type': 'application/json',
        'x-account': src.number(),
        'x-subject': src.sentence(12),
      },
    }
    requests.push(request)
    size += JSON.stringify(request).length
  }
  return { capturing: true, total: requests.length, requests }
}

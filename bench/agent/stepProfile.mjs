// Where a bridge browser step's time goes, inside the extension. Starts bridge as bench/agent does
// (the built daemon, Chromium with the built extension), plus a DevTools port through which this script
// attaches to the extension's service worker only (no page is attached, so no dialog is answered by it).
// There it wraps the Chrome APIs the built-in tools call (scripting.executeScript, tabs.*,
// debugger.*) to time each call, then runs the agent's steps and prints, per kind of step, the
// client's time, the time spent in the extension and the share of each API call.
//
//   node bench/agent/stepProfile.mjs [--rounds 5] [--timeline]
import { performance } from 'node:perf_hooks'
import WebSocket from 'ws'
import { SERVERS } from './servers.mjs'
import { startAgentSite } from './site.mjs'
import { Agent } from './tasks.mjs'

const argv = process.argv.slice(2)
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback)
const rounds = Number(opt('--rounds', 5))
const timeline = argv.includes('--timeline')

/** Installed in the service worker: times every call of the wrapped Chrome APIs into `__stepProfile`. */
const WRAP = `(() => {
  if (globalThis.__stepProfile) return 'already'
  const events = []
  globalThis.__stepProfile = events
  const wrap = (obj, name, label) => {
    const orig = obj[name]
    obj[name] = function (...args) {
      const start = performance.now()
      const wall = Date.now()
      const out = orig.apply(this, args)
      const done = (suffix) => events.push({ what: label(args) + suffix, start, wall, ms: performance.now() - start })
      if (out && typeof out.then === 'function') out.then(() => done(''), () => done(' (failed)'))
      else done('')
      return out
    }
  }
  wrap(chrome.scripting, 'executeScript', (a) =>
    a[0].files ? 'executeScript: inject ' + a[0].files.join() : 'executeScript: run ' + (a[0].args?.[0] ?? 'func'))
  for (const name of ['get', 'query', 'update', 'create'])
    wrap(chrome.tabs, name, () => 'tabs.' + name)
  wrap(chrome.debugger, 'sendCommand', (a) => 'debugger: ' + a[1])
  wrap(chrome.debugger, 'attach', () => 'debugger.attach')
  wrap(chrome.debugger, 'detach', () => 'debugger.detach')
  wrap(chrome.webNavigation, 'getAllFrames', () => 'webNavigation.getAllFrames')
  for (const name of ['get', 'set']) wrap(chrome.storage.session, name, () => 'storage.session.' + name)
  for (const name of ['get', 'set']) wrap(chrome.storage.local, name, () => 'storage.local.' + name)
  if (chrome.tabGroups) for (const name of ['get', 'query', 'update']) wrap(chrome.tabGroups, name, () => 'tabGroups.' + name)
  wrap(chrome.tabs, 'group', () => 'tabs.group')
  // The daemon's request reaching the worker: the parse of its frame.
  const parse = JSON.parse
  JSON.parse = function (text, ...rest) {
    if (typeof text === 'string' && text.includes('"tool.dispatch"'))
      events.push({ what: 'socket frame: tool.dispatch', start: performance.now(), wall: Date.now(), ms: 0 })
    return parse.call(this, text, ...rest)
  }
  // The extension's answers to the daemon: the last thing of a step in the service worker.
  wrap(WebSocket.prototype, 'send', (a) => 'socket.send ' + String(a[0]).slice(0, 40).replace(/"/g, ''))
  const sleep = globalThis.setTimeout
  globalThis.setTimeout = function (fn, ms, ...rest) {
    if (ms >= 20 && ms <= 1000) events.push({ what: 'setTimeout ' + ms + ' ms', start: performance.now(), wall: Date.now(), ms: 0, timer: ms })
    return sleep(fn, ms, ...rest)
  }
  return 'installed'
})()`

async function serviceWorker(url) {
  const ws = new WebSocket(url, { perMessageDeflate: false })
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)))
  let id = 0
  const pending = new Map()
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data))
    if (msg.id !== undefined && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id)
      pending.delete(msg.id)
      if (msg.error) reject(new Error(msg.error.message))
      else resolve(msg.result)
    }
  })
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      pending.set(++id, { resolve, reject })
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }))
    })
  const { targetInfos } = await send('Target.getTargets')
  const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.endsWith('/background.js'))
  if (!worker) throw new Error('no extension service worker among the targets')
  const { sessionId } = await send('Target.attachToTarget', { targetId: worker.targetId, flatten: true })
  const evaluate = async (expression) => {
    const { result, exceptionDetails } = await send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      sessionId,
    )
    if (exceptionDetails) throw new Error(exceptionDetails.text + JSON.stringify(exceptionDetails.exception))
    return result.value
  }
  return { evaluate, close: () => ws.close() }
}

const site = await startAgentSite()
const server = await SERVERS.bridge({ inspect: true })
const sw = await serviceWorker(server.devtoolsUrl())
try {
  console.log('wrappers:', await sw.evaluate(WRAP))
  const take = () => sw.evaluate('globalThis.__stepProfile.splice(0)')
  /** kind -> [{ ms, events }] */
  const byKind = new Map()
  const step = async (agent, kind, run) => {
    await take()
    const t0 = performance.now()
    const wall0 = Date.now()
    await run()
    const ms = performance.now() - t0
    const wall1 = Date.now()
    const events = (await take()).filter((e) => e.wall >= wall0 - 5)
    // Outside the extension: from the client's request to the extension's first API call, and from the
    // extension's answer (its last socket send) to the client's result (the daemon and both sockets).
    const sends = events.filter((e) => e.what.startsWith('socket.send'))
    const inbound = events.length ? events[0].wall - wall0 : 0
    const outbound = sends.length ? wall1 - sends.at(-1).wall : 0
    // The daemon's own view of the call (its audit entry: from the call's start to its outcome).
    const entry = server.audit().at(-1)
    const daemon = entry?.durationMs ?? 0
    if (timeline && entry) {
      const at = (ms) => `${ms - wall0} ms`
      const frame = events.find((e) => e.what === 'socket frame: tool.dispatch')
      const answer = events.find((e) => /result:\{outp/.test(e.what))
      console.log(
        `  [wall] client sends 0 ms; call starts (audit) ${at(Date.parse(entry.timestamp) - daemon)}; frame in the worker ${frame ? at(frame.wall) : '-'}; worker answers ${answer ? at(answer.wall) : '-'}; call ends (audit) ${at(Date.parse(entry.timestamp))}; client has it ${at(wall1)}`,
      )
    }
    if (!byKind.has(kind)) byKind.set(kind, [])
    byKind.get(kind).push({ ms, events, inbound, outbound, daemon })
    if (timeline) {
      const first = events[0]?.start ?? 0
      console.log(
        `\n${kind}: ${ms.toFixed(1)} ms at the client; client to extension ${inbound} ms, answer to client ${outbound} ms`,
      )
      for (const e of events)
        console.log(
          `  +${(e.start - first).toFixed(1).padStart(7)} ${e.ms.toFixed(1).padStart(7)} ms  ${e.what}`,
        )
    }
  }
  // Warm-up, as the benchmark does.
  await new Agent(server).open(site.url('/login'))
  for (let round = 0; round < rounds; round++) {
    site.reset()
    const a = new Agent(server)
    await step(a, 'open', () => a.open(site.url('/dialog')))
    const ref = a.refIn(a.known, /button "Delete old drafts"/)
    await step(a, 'click (opens a dialog)', () => a.click(ref))
    await step(a, 'dialog', () => a.acceptDialog())
    await step(a, 'open', () => a.open(site.url('/article')))
    await step(a, 'snapshot', () => a.call(server.snapshot(), 'snapshot'))
    await step(a, 'open', () => a.open(site.url('/search')))
    const box = a.refIn(a.known, /searchbox|textbox/)
    await step(a, 'type + submit', () => a.type(box, 'telescope', { submit: true }))
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
  for (const [kind, runs] of byKind) {
    console.log(
      `\n${kind}: median ${median(runs.map((r) => r.ms)).toFixed(1)} ms at the client, ${runs.length} runs`,
    )
    const extension = runs.map((r) =>
      r.events.length ? Math.max(...r.events.map((e) => e.start + e.ms)) - r.events[0].start : 0,
    )
    console.log(`  first to last API call in the extension: median ${median(extension).toFixed(1)} ms`)
    console.log(
      `  client to the extension's first call: median ${median(runs.map((r) => r.inbound))} ms; its answer to the client: median ${median(runs.map((r) => r.outbound))} ms; the call in the daemon's audit: median ${median(runs.map((r) => r.daemon))} ms`,
    )
    const sums = new Map()
    for (const r of runs)
      for (const e of r.events) {
        const s = sums.get(e.what) ?? { count: 0, ms: 0 }
        s.count++
        s.ms += e.ms
        sums.set(e.what, s)
      }
    for (const [what, s] of [...sums].sort((x, y) => y[1].ms - x[1].ms))
      console.log(
        `  ${(s.ms / runs.length).toFixed(1).padStart(7)} ms  ${(s.count / runs.length).toFixed(1).padStart(5)}x  ${what}`,
      )
  }
} finally {
  sw.close()
  await server.close()
  await site.close?.()
}

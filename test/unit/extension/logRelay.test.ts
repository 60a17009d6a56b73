import { describe, expect, it } from 'vitest'
import { LogRelay, type LogEntry } from '../../../extension/background/logRelay'

describe('plugin log batching', () => {
  it('sends entries in one batch, cutting long messages and oversized data with a marker', () => {
    const batches: LogEntry[][] = []
    const relay = new LogRelay((entries) => (batches.push(entries), true))
    relay.add({ plugin: 'p', level: 'info', message: 'short', data: { n: 1 }, ts: 1 })
    relay.add({ plugin: 'p', level: 'warning', message: 'x'.repeat(9000), ts: 2 })
    relay.add({ plugin: 'p', level: 'error', message: 'big', data: 'y'.repeat(40_000), ts: 3 })
    relay.flush()
    expect(batches).toHaveLength(1)
    const [a, b, c] = batches[0] ?? []
    expect(a).toEqual({ plugin: 'p', level: 'info', message: 'short', data: { n: 1 }, ts: 1 })
    expect(b?.message.endsWith('… [truncated]')).toBe(true)
    expect(b?.message.length).toBe(2 * 1024 + '… [truncated]'.length)
    expect(c?.data).toEqual({ truncated: true, bytes: 40_002 })
  })

  it('cuts data of more than 8 KB as JSON', () => {
    const batches: LogEntry[][] = []
    const relay = new LogRelay((entries) => (batches.push(entries), true))
    relay.add({ plugin: 'p', level: 'info', message: 'fits', data: 'z'.repeat(8 * 1024 - 2), ts: 1 })
    relay.add({ plugin: 'p', level: 'info', message: 'too big', data: 'z'.repeat(8 * 1024), ts: 2 })
    relay.flush()
    expect(batches.flat().map((e) => e.data)).toEqual([
      'z'.repeat(8 * 1024 - 2),
      { truncated: true, bytes: 8 * 1024 + 2 },
    ])
  })

  it('keeps entries while disconnected and sends them once it can, at most 1000 a batch', () => {
    let connected = false
    let clock = 0
    const batches: LogEntry[][] = []
    const relay = new LogRelay(
      (entries) => (connected ? (batches.push(entries), true) : false),
      () => clock,
    )
    for (let i = 0; i < 1500; i++) {
      clock = i * 25 // 40 a second: under the rate limit
      relay.add({ plugin: 'p', level: 'debug', message: `m${i}`, ts: i })
    }
    relay.flush()
    expect(batches).toHaveLength(0)
    connected = true
    relay.flush()
    expect(batches.map((b) => b.length)).toEqual([1000, 500])
    expect(batches[1]?.at(-1)?.message).toBe('m1499')
  })

  it('lets a plugin log 50 entries a second and reports how many more it dropped', () => {
    let clock = 0
    const batches: LogEntry[][] = []
    const relay = new LogRelay(
      (entries) => (batches.push(entries), true),
      () => clock,
    )
    for (let i = 0; i < 100; i++) relay.add({ plugin: 'noisy', level: 'info', message: `n${i}`, ts: 0 })
    relay.add({ plugin: 'quiet', level: 'info', message: 'still heard', ts: 0 })
    clock = 1_000
    relay.add({ plugin: 'noisy', level: 'info', message: 'next second', ts: 1_000 })
    relay.flush()
    const all = batches.flat()
    expect(all.filter((e) => e.plugin === 'noisy' && /^n\d+$/.test(e.message))).toHaveLength(50)
    expect(all.filter((e) => e.plugin === 'quiet').map((e) => e.message)).toEqual(['still heard'])
    expect(all.slice(-2)).toEqual([
      {
        plugin: 'noisy',
        level: 'warning',
        message: '50 log entries dropped: more than 50 a second',
        ts: 1_000,
      },
      { plugin: 'noisy', level: 'info', message: 'next second', ts: 1_000 },
    ])
  })
})

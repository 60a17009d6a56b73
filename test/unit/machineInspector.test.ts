import { EventEmitter } from 'node:events'
import { createActor, createMachine } from 'xstate'
import { describe, expect, it } from 'vitest'
import { inspectUrlFrom, INSPECT_DEFAULT_URL, toInspectable } from '../../src/machineInspector'
import { registerSecret } from '../../src/log'

describe('inspectUrlFrom', () => {
  it('is off unless asked for by flag or BRIDGE_INSPECT=1', () => {
    expect(inspectUrlFrom(false, {})).toBeUndefined()
    expect(
      inspectUrlFrom(false, { BRIDGE_INSPECT: '0', BRIDGE_INSPECT_URL: 'ws://127.0.0.1:1' }),
    ).toBeUndefined()
    expect(inspectUrlFrom(true, {})).toBe(`${INSPECT_DEFAULT_URL}/`)
    expect(inspectUrlFrom(false, { BRIDGE_INSPECT: '1' })).toBe('ws://127.0.0.1:8080/')
  })

  it('takes BRIDGE_INSPECT_URL on loopback only', () => {
    expect(inspectUrlFrom(true, { BRIDGE_INSPECT_URL: 'ws://localhost:9000/inspect' })).toBe(
      'ws://localhost:9000/inspect',
    )
    expect(inspectUrlFrom(true, { BRIDGE_INSPECT_URL: 'ws://[::1]:9000' })).toBe('ws://[::1]:9000/')
    for (const url of [
      'ws://10.0.0.1:8080',
      'ws://127.0.0.2:8080',
      'http://127.0.0.1:8080',
      'ws://localhost.evil.com:1',
    ])
      expect(() => inspectUrlFrom(true, { BRIDGE_INSPECT_URL: url }), url).toThrow(
        /must be a ws:\/\/ address on this machine/,
      )
  })
})

describe('toInspectable', () => {
  it('keeps plain data and drops functions and symbols', () => {
    expect(
      toInspectable({ a: 1, b: 'x', c: [true, null, 2n], d: () => 1, e: Symbol('s'), f: undefined }),
    ).toEqual({
      a: 1,
      b: 'x',
      c: [true, null, '2'],
    })
  })

  it('cuts cycles and deep nesting instead of throwing', () => {
    const loop: Record<string, unknown> = { name: 'loop' }
    loop.self = loop
    expect(toInspectable(loop)).toEqual({ name: 'loop', self: '[Circular]' })
    let deep: Record<string, unknown> = { leaf: true }
    for (let i = 0; i < 20; i++) deep = { next: deep }
    expect(JSON.stringify(toInspectable(deep))).toContain('"[Object]"')
    // The same object twice is not a cycle.
    const shared = { v: 1 }
    expect(toInspectable({ a: shared, b: shared })).toEqual({ a: { v: 1 }, b: { v: 1 } })
  })

  it('names class instances (sockets, emitters) instead of walking them', () => {
    expect(toInspectable({ socket: new EventEmitter(), at: new Date(0) })).toEqual({
      socket: '[EventEmitter]',
      at: '1970-01-01T00:00:00.000Z',
    })
    expect(toInspectable(new Map([['k', new Set([1])]]))).toEqual({ k: [1] })
    expect(toInspectable(new Error('boom'))).toEqual({ name: 'Error', message: 'boom' })
  })

  it('calls toJSON once, as JSON.stringify does, even when the result has toJSON again', () => {
    const endless = (): Record<string, unknown> => ({ kind: 'transition', toJSON: endless })
    expect(toInspectable({ t: { toJSON: endless } })).toEqual({ t: { kind: 'transition' } })
  })

  it('shows actor refs by id and serializes a whole machine snapshot', () => {
    const actor = createActor(
      createMachine({ id: 'probe', initial: 'idle', context: { n: 1 }, states: { idle: {} } }),
    ).start()
    expect(toInspectable({ ref: actor })).toEqual({ ref: { xstate$$type: 1, id: actor.id } })
    expect(toInspectable(actor.getSnapshot())).toMatchObject({
      value: 'idle',
      context: { n: 1 },
      status: 'active',
    })
    actor.stop()
  })

  it('redacts the secret, bearer tokens and 64-hex strings wherever they appear', () => {
    const secret = 'not-hex-but-registered-secret-value'
    registerSecret(secret)
    const out = JSON.stringify(
      toInspectable({
        header: `Bearer abc.def`,
        nested: [{ note: `token ${secret}` }],
        hex: 'f'.repeat(64),
        error: new Error(`bad ${secret}`),
      }),
    )
    expect(out).not.toContain(secret)
    expect(out).not.toContain('abc.def')
    expect(out).not.toContain('f'.repeat(64))
    expect(out.match(/\[redacted\]/g)).toHaveLength(4)
  })
})

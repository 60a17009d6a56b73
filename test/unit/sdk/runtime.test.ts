import { describe, expect, it } from 'vitest'
import { definePlugin, defineTool, SDK_VERSION, ToolError, Type } from '../../../src/sdk'
import { createAdapter, registerAdapter, toAdapterError, type AdapterEnv } from '../../../src/sdk/runtime'
import type { AdapterEvent } from '../../../src/protocol/adapter'

function env(events: AdapterEvent[] = []): AdapterEnv {
  return {
    baseUrl: 'https://example.com/app',
    fetch: () => Promise.resolve(new Response('{"ok":true}', { status: 200 })),
    post: (event) => {
      events.push(structuredClone(event))
    },
  }
}

const plugin = (isReady?: () => boolean | Promise<boolean>) =>
  definePlugin({
    ...(isReady ? { isReady } : {}),
    tools: [
      defineTool({
        name: 'work',
        description: 'd',
        input: Type.Object({ n: Type.Number() }),
        handle: (input, ctx) => {
          ctx.progress(1, 2, 'half')
          ctx.progress(2)
          ctx.log.debug('dbg')
          ctx.log.warn('careful', { n: input.n })
          ctx.log.error('uncloneable', { f: () => 1 })
          return { double: input.n * 2, dispatchId: ctx.dispatchId }
        },
      }),
      defineTool({ name: 'nothing', description: 'd', input: Type.Object({}), handle: () => undefined }),
      defineTool({
        name: 'fetch_it',
        description: 'd',
        input: Type.Object({}),
        handle: (_i, ctx) => ctx.fetchJSON('/api'),
      }),
      defineTool({
        name: 'refuse',
        description: 'd',
        input: Type.Object({}),
        handle: () => {
          throw new ToolError('slow down', { code: 'too_fast', category: 'rate_limit', retryable: true })
        },
      }),
      defineTool({
        name: 'throw_string',
        description: 'd',
        input: Type.Object({}),
        handle: () => Promise.reject(new Error('kaput')),
      }),
    ],
  })

describe('createAdapter', () => {
  it('describes the plugin', () => {
    const adapter = createAdapter(plugin(), { name: 'demo', version: '2.0.0' }, env())
    expect(adapter).toMatchObject({ name: 'demo', version: '2.0.0', sdkVersion: SDK_VERSION })
    expect([...adapter.tools]).toEqual(['work', 'nothing', 'fetch_it', 'refuse', 'throw_string'])
    expect(Object.isFrozen(adapter)).toBe(true)
  })

  it('runs a tool and posts progress and log events', async () => {
    const events: AdapterEvent[] = []
    const adapter = createAdapter(plugin(), { name: 'demo', version: '1.0.0' }, env(events))
    expect(await adapter.invoke('work', { n: 21 }, 'call-1')).toEqual({
      ok: true,
      output: { double: 42, dispatchId: 'call-1' },
    })
    // Events name no plugin: the channel they travel on says whose they are. Each names its call.
    expect(events.map(({ ...e }) => ('ts' in e ? { ...e, ts: 0 } : e))).toEqual([
      { kind: 'progress', dispatchId: 'call-1', progress: 1, total: 2, message: 'half' },
      { kind: 'progress', dispatchId: 'call-1', progress: 2 },
      { kind: 'log', dispatchId: 'call-1', level: 'debug', message: 'dbg', ts: 0 },
      { kind: 'log', dispatchId: 'call-1', level: 'warning', message: 'careful', data: { n: 21 }, ts: 0 },
      // structuredClone refuses functions: the entry still arrives, with its data as text.
      { kind: 'log', dispatchId: 'call-1', level: 'error', message: 'uncloneable', data: '{}', ts: 0 },
    ])
  })

  it('returns null for a tool that returns nothing', async () => {
    const adapter = createAdapter(plugin(), { name: 'demo', version: '1.0.0' }, env())
    expect(await adapter.invoke('nothing', {}, 'x')).toEqual({ ok: true, output: null })
  })

  it('keeps a ToolError code, category and retryable', async () => {
    const adapter = createAdapter(plugin(), { name: 'demo', version: '1.0.0' }, env())
    expect(await adapter.invoke('refuse', {}, 'x')).toEqual({
      ok: false,
      error: { code: 'too_fast', message: 'slow down', category: 'rate_limit', retryable: true },
    })
  })

  it('turns any other throw into tool_error / internal', async () => {
    const adapter = createAdapter(plugin(), { name: 'demo', version: '1.0.0' }, env())
    expect(await adapter.invoke('throw_string', {}, 'x')).toEqual({
      ok: false,
      error: { code: 'tool_error', message: 'kaput', category: 'internal' },
    })
  })

  it('uses the page fetch', async () => {
    const adapter = createAdapter(plugin(), { name: 'demo', version: '1.0.0' }, env())
    expect(await adapter.invoke('fetch_it', {}, 'x')).toEqual({ ok: true, output: { ok: true } })
  })

  it('reports readiness, false on a throw, true without a probe', async () => {
    const meta = { name: 'demo', version: '1.0.0' }
    expect(
      await createAdapter(
        plugin(() => true),
        meta,
        env(),
      ).isReady(),
    ).toBe(true)
    expect(
      await createAdapter(
        plugin(() => Promise.resolve(false)),
        meta,
        env(),
      ).isReady(),
    ).toBe(false)
    const throwing = createAdapter(
      plugin(() => {
        throw new Error('no DOM')
      }),
      meta,
      env(),
    )
    expect(await throwing.isReady()).toBe(false)
    expect(
      await createAdapter(
        plugin(() => Promise.reject(new Error('x'))),
        meta,
        env(),
      ).isReady(),
    ).toBe(false)
    expect(await createAdapter(plugin(), meta, env()).isReady()).toBe(true)
  })
})

describe('toAdapterError', () => {
  it('recognises a ToolError from another copy of the SDK', () => {
    const foreign = Object.assign(new Error('other realm'), {
      name: 'ToolError',
      code: 'x_y',
      category: 'auth',
      retryable: true,
    })
    expect(toAdapterError(foreign)).toEqual({
      code: 'x_y',
      message: 'other realm',
      category: 'auth',
      retryable: true,
    })
  })

  it('describes thrown non-errors', () => {
    expect(toAdapterError('plain text')).toEqual({
      code: 'tool_error',
      message: 'plain text',
      category: 'internal',
    })
    expect(toAdapterError({ why: 'object' })).toEqual({
      code: 'tool_error',
      message: '{"why":"object"}',
      category: 'internal',
    })
    expect(toAdapterError(new Error(''))).toMatchObject({ message: 'the tool failed without a message' })
  })
})

describe('registerAdapter', () => {
  it('defines no page global (outside a browser window it has no channel to open)', () => {
    const before = Object.getOwnPropertyNames(globalThis).length
    expect(registerAdapter(plugin(), { name: 'reg-test', version: '1.0.0' }, env())).toBe(false)
    expect(Object.getOwnPropertyNames(globalThis).filter((k) => k.includes('reg-test'))).toEqual([])
    expect(Object.getOwnPropertyNames(globalThis)).toHaveLength(before)
  })
})

describe('a page that patches promises', () => {
  const tamper = (target: object, key: string | symbol, value: unknown): (() => void) => {
    const original = Object.getOwnPropertyDescriptor(target, key)
    Object.defineProperty(target, key, { value, configurable: true, writable: true })
    return () => {
      if (original) Object.defineProperty(target, key, original)
      else delete (target as Record<string | symbol, unknown>)[key]
    }
  }

  it('gets page_tampered instead of a result, and the handler does not run, when Promise.prototype.then was replaced', async () => {
    let ran = 0
    const adapter = createAdapter(
      definePlugin({
        tools: [
          defineTool({ name: 't', description: 'd', input: Type.Object({}), handle: () => (ran++, 'real') }),
        ],
      }),
      { name: 'demo', version: '1.0.0' },
      env(),
    )
    const then = Object.getOwnPropertyDescriptor(Promise.prototype, 'then')
      ?.value as typeof Promise.prototype.then
    const restore = tamper(Promise.prototype, 'then', function (this: Promise<unknown>, ...args: unknown[]) {
      return Reflect.apply(then, this, args) as unknown
    })
    let result: unknown
    try {
      result = adapter.invoke('t', {}, 'x')
    } finally {
      restore()
    }
    expect(await result).toMatchObject({ ok: false, error: { code: 'page_tampered' } })
    expect(ran).toBe(0)
    expect(await adapter.invoke('t', {}, 'y')).toEqual({ ok: true, output: 'real' })
  })

  it('refuses a result when the page defined Object.prototype.toJSON while the handler ran', async () => {
    let restore = (): void => undefined
    const adapter = createAdapter(
      definePlugin({
        tools: [
          defineTool({
            name: 't',
            description: 'd',
            input: Type.Object({}),
            handle: () => {
              restore = tamper(Object.prototype, 'toJSON', () => ({ forged: true }))
              return { real: true }
            },
          }),
        ],
      }),
      { name: 'demo', version: '1.0.0' },
      env(),
    )
    let result: unknown
    try {
      result = adapter.invoke('t', {}, 'x')
    } finally {
      restore()
    }
    expect(await result).toMatchObject({
      ok: false,
      error: { code: 'page_tampered', message: expect.stringContaining('Object.prototype.toJSON') },
    })
  })
})

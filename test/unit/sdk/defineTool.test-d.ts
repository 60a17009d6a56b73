import { describe, expectTypeOf, it } from 'vitest'
import { definePlugin, defineTool, Type, type ToolContext, type ToolDefinition } from 'bridge/sdk'

describe('defineTool types', () => {
  it('infers handle input from the input schema', () => {
    defineTool({
      name: 'create_note',
      description: 'd',
      input: Type.Object({
        title: Type.String(),
        count: Type.Optional(Type.Integer()),
        kind: Type.Union([Type.Literal('a'), Type.Literal('b')]),
        tags: Type.Array(Type.String()),
      }),
      handle: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{
          title: string
          count?: number
          kind: 'a' | 'b'
          tags: string[]
        }>()
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>()
        return null
      },
    })
  })

  it('rejects reading a property the schema does not declare', () => {
    defineTool({
      name: 't',
      description: 'd',
      input: Type.Object({ title: Type.String() }),
      handle: (input) => {
        // @ts-expect-error `body` is not in the schema
        void input.body
        return null
      },
    })
  })

  it('checks the returned value against the output schema', () => {
    defineTool({
      name: 't',
      description: 'd',
      input: Type.Object({}),
      output: Type.Object({ n: Type.Number() }),
      handle: () => ({ n: 1 }),
    })
    defineTool({
      name: 't',
      description: 'd',
      input: Type.Object({}),
      output: Type.Object({ n: Type.Number() }),
      // @ts-expect-error `n` must be a number
      handle: () => ({ n: 'one' }),
    })
    defineTool({
      name: 't',
      description: 'd',
      input: Type.Object({}),
      output: Type.Object({ n: Type.Number() }),
      handle: async () => Promise.resolve({ n: 2 }),
    })
  })

  it('requires an object input schema', () => {
    defineTool({
      name: 't',
      description: 'd',
      // @ts-expect-error tool input must be Type.Object
      input: Type.String(),
      handle: () => null,
    })
  })

  it('types the context helpers', () => {
    defineTool({
      name: 't',
      description: 'd',
      input: Type.Object({}),
      handle: async (_input, ctx) => {
        expectTypeOf(ctx.progress).parameters.toEqualTypeOf<
          [number, (number | undefined)?, (string | undefined)?]
        >()
        expectTypeOf(ctx.log.warn).parameters.toEqualTypeOf<[string, unknown?]>()
        expectTypeOf(await ctx.fetchJSON<{ id: number }>('/api')).toEqualTypeOf<{ id: number }>()
        expectTypeOf(await ctx.fetch('/api')).toEqualTypeOf<Response>()
        return null
      },
    })
  })

  it('accepts tools of different schemas in one plugin', () => {
    const a = defineTool({
      name: 'a',
      description: 'd',
      input: Type.Object({ x: Type.String() }),
      handle: () => 1,
    })
    const b = defineTool({
      name: 'b',
      description: 'd',
      input: Type.Object({ y: Type.Number() }),
      handle: () => 'b',
    })
    const plugin = definePlugin({ isReady: () => true, tools: [a, b] })
    expectTypeOf(plugin.tools[0]).toExtend<ToolDefinition>()
    // @ts-expect-error isReady must return a boolean
    definePlugin({ isReady: () => 'yes', tools: [a] })
  })
})

/**
 * The bridge plugin SDK. Plugin sources import it as `bridge/sdk`:
 *
 * @example
 * import { definePlugin, defineTool, Type, ToolError } from 'bridge/sdk'
 *
 * export default definePlugin({
 *   isReady: () => document.querySelector('[data-user]') !== null,
 *   tools: [
 *     defineTool({
 *       name: 'list_notes',
 *       description: 'List the notes of the signed-in user',
 *       input: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
 *       handle: async (input, ctx) => {
 *         ctx.progress(0, 1, 'fetching notes')
 *         const { notes } = await ctx.fetchJSON<{ notes: unknown[] }>('/api/notes')
 *         return notes.slice(0, input.limit ?? 20)
 *       },
 *     }),
 *   ],
 * })
 */
export { Type } from '@sinclair/typebox'
export { SDK_VERSION } from '../protocol/constants'
export { definePlugin, defineTool } from './define'
export { ToolError, type ToolErrorOptions } from './toolError'
export type {
  FetchJSONInit,
  PluginDefinition,
  Static,
  TObject,
  TSchema,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolLogger,
  ToolOutput,
} from './types'

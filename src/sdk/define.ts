import type { TObject, TSchema } from '@sinclair/typebox'
import type { PluginDefinition, ToolDefinition } from './types'

/**
 * Declares one tool. Only adds types: `handle`'s `input` is the static type of the `input` schema.
 *
 * @example
 * defineTool({
 *   name: 'create_note',
 *   description: 'Create a note for the signed-in user',
 *   input: Type.Object({ title: Type.String({ minLength: 1 }) }),
 *   handle: (input, ctx) => ctx.fetchJSON('/api/notes', { method: 'POST', json: { title: input.title } }),
 * })
 */
export function defineTool<I extends TObject, O extends TSchema | undefined = undefined>(
  tool: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return tool
}

/**
 * Declares a plugin; default-export the result from the plugin's entry file.
 *
 * @example
 * export default definePlugin({
 *   isReady: () => document.querySelector('[data-user]') !== null,
 *   tools: [listNotes, createNote],
 * })
 */
export function definePlugin<const P extends PluginDefinition>(plugin: P): P {
  return plugin
}

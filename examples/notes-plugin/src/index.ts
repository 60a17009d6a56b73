/**
 * The example plugin for the demo notes site (examples/demo-site). Build it with
 * `bridge-plugin build` in this folder; the daemon then offers the tools `notes_whoami`,
 * `notes_list_notes`, `notes_create_note`, `notes_delete_note` and `notes_slow_count`.
 */
import { definePlugin, defineTool, Type, ToolError } from 'bridge/sdk'

const Note = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  body: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
})

const whoami = defineTool({
  name: 'whoami',
  description: 'Return the name of the user signed in to the demo notes site.',
  input: Type.Object({}),
  output: Type.Object({ user: Type.String() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  handle: (_input, ctx) => ctx.fetchJSON<{ user: string }>('/api/me'),
})

const listNotes = defineTool({
  name: 'list_notes',
  displayName: 'List notes',
  description: 'List the notes of the signed-in user, oldest first.',
  input: Type.Object({
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'at most this many notes (default 20)' }),
    ),
  }),
  output: Type.Object({ notes: Type.Array(Note) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  handle: async (input, ctx) => {
    const { notes } = await ctx.fetchJSON<{ notes: Array<typeof Note.static> }>('/api/notes')
    ctx.log.info(`found ${notes.length} notes`)
    return { notes: notes.slice(0, input.limit ?? 20) }
  },
})

const createNote = defineTool({
  name: 'create_note',
  description: 'Create a note for the signed-in user and return it.',
  input: Type.Object({
    title: Type.String({ minLength: 1, maxLength: 200, description: 'the note title' }),
    body: Type.Optional(Type.String({ maxLength: 10_000, description: 'the note text' })),
  }),
  output: Type.Object({ note: Note }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handle: async (input, ctx) => {
    const result = await ctx.fetchJSON<{ note: typeof Note.static }>('/api/notes', {
      method: 'POST',
      json: { title: input.title, body: input.body ?? '' },
    })
    ctx.log.info('created a note', { id: result.note.id })
    return result
  },
})

const deleteNote = defineTool({
  name: 'delete_note',
  description: 'Delete one note of the signed-in user by its id.',
  input: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handle: async (input, ctx) => {
    try {
      await ctx.fetch(`/api/notes/${input.id}`, { method: 'DELETE' })
    } catch (error) {
      if (error instanceof ToolError && error.category === 'not_found')
        throw new ToolError(`there is no note ${input.id}; list_notes shows the ids`, {
          code: 'no_such_note',
          category: 'not_found',
        })
      throw error
    }
    return { deleted: input.id }
  },
})

const slowCount = defineTool({
  name: 'slow_count',
  description:
    'Count from 1 to `to`, one step per server round trip, reporting progress (a demo of progress reports).',
  input: Type.Object({
    to: Type.Integer({ minimum: 1, maximum: 20, description: 'how far to count' }),
    stepMs: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 5000, description: 'server delay per step (default 500)' }),
    ),
  }),
  output: Type.Object({ counted: Type.Integer() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  handle: async (input, ctx) => {
    for (let i = 1; i <= input.to; i++) {
      await ctx.fetchJSON(`/api/slow?ms=${input.stepMs ?? 500}`)
      ctx.progress(i, input.to, `counted ${i} of ${input.to}`)
    }
    ctx.log.debug('done counting', { to: input.to })
    return { counted: input.to }
  },
})

export default definePlugin({
  // Signed in = the page shows <main data-user="...">.
  isReady: () => document.querySelector('main[data-user]') !== null,
  tools: [whoami, listNotes, createNote, deleteNote, slowCount],
})

/**
 * The one rule for tool names. A plugin tool is `<plugin>_<tool>`; plugin names never contain `_`,
 * so the first `_` splits them. Built-in tools (`browser_*`, `extension_*`) belong to the pseudo-plugin
 * `browser` and keep their full name as their key.
 */

/** `notes_list_notes` -> `{ plugin: 'notes', tool: 'list_notes' }`; undefined without a `_` inside. */
export function splitToolName(fullName: string): { plugin: string; tool: string } | undefined {
  const i = fullName.indexOf('_')
  if (i <= 0 || i === fullName.length - 1) return undefined
  return { plugin: fullName.slice(0, i), tool: fullName.slice(i + 1) }
}

/** `('notes', 'list_notes')` -> `notes_list_notes`. */
export const pluginToolName = (plugin: string, tool: string): string => `${plugin}_${tool}`

/**
 * The one rule for tool names: every join of a plugin and a tool name, or of a workflow's name and
 * its prefix, and every split of one, is here (test/unit/protocol/toolNames.test.ts finds any other).
 * A plugin tool is `<plugin>_<tool>`; plugin names never contain `_`, so the first `_` splits them.
 * Built-in tools (`browser_*`, `extension_*`) belong to the pseudo-plugin `browser` and keep their full
 * name as their key. A saved workflow is the tool `workflow_<name>` (src/protocol/workflow.ts). Sites'
 * own tools are named by src/sites/siteNames.ts.
 */

/** `notes_list_notes` -> `{ plugin: 'notes', tool: 'list_notes' }`; undefined without a `_` inside. */
export function splitToolName(fullName: string): { plugin: string; tool: string } | undefined {
  const i = fullName.indexOf('_')
  if (i <= 0 || i === fullName.length - 1) return undefined
  return { plugin: fullName.slice(0, i), tool: fullName.slice(i + 1) }
}

/** `('notes', 'list_notes')` -> `notes_list_notes`. */
export const pluginToolName = (plugin: string, tool: string): string => `${plugin}_${tool}`

/**
 * A saved workflow is the tool `workflow_<name>`. It belongs to the `browser` pseudo-plugin (the
 * extension's built-in code replays it), with the workflow file's own permission; no plugin can be
 * named `workflow`, so no plugin tool can take such a name.
 */
export const WORKFLOW_TOOL_PREFIX = 'workflow_'

export function isWorkflowToolName(name: string): boolean {
  return name.startsWith(WORKFLOW_TOOL_PREFIX)
}

/** `sign_in` -> `workflow_sign_in`. */
export const workflowToolName = (workflow: string): string => `${WORKFLOW_TOOL_PREFIX}${workflow}`

/** `workflow_sign_in` -> `sign_in`; undefined for a tool that is not a workflow. */
export function workflowOfToolName(name: string): string | undefined {
  return isWorkflowToolName(name) ? name.slice(WORKFLOW_TOOL_PREFIX.length) : undefined
}

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  isWorkflowToolName,
  pluginToolName,
  splitToolName,
  workflowOfToolName,
  workflowToolName,
} from '../../../src/protocol/toolNames'

const root = join(import.meta.dirname, '..', '..', '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

/**
 * Ways a file joins or splits a tool name by hand: `${plugin}_${tool}`, `workflow_${name}` (or
 * `workflow_{name}` in markup), a cut at the first `_`, a cut of a prefix and its separator, the
 * workflow prefix itself.
 */
const INLINE = [
  /\$\{[^}]+\}_\$\{/,
  /\bworkflow_\$?\{/,
  /\b(?:indexOf|lastIndexOf|split)\(\s*'_'\s*\)/,
  /\.slice\(\s*[\w.]+\.length\s*\+\s*1\s*\)/,
  /\bWORKFLOW_TOOL_PREFIX\b/,
]
/** The rule's own module, and sites' tool names (their own rule: `<site>__<tool>`). */
const HOMES = new Set(['src/protocol/toolNames.ts', 'src/sites/siteNames.ts'])

describe('tool names', () => {
  it('join and split a plugin tool at the first _, and a workflow at its prefix', () => {
    expect(pluginToolName('notes', 'list_notes')).toBe('notes_list_notes')
    expect(splitToolName('notes_list_notes')).toEqual({ plugin: 'notes', tool: 'list_notes' })
    expect(splitToolName('notes')).toBeUndefined()
    expect(workflowToolName('sign_in')).toBe('workflow_sign_in')
    expect(workflowOfToolName('workflow_sign_in')).toBe('sign_in')
    expect(workflowOfToolName('notes_list_notes')).toBeUndefined()
    expect(isWorkflowToolName(workflowToolName('a'))).toBe(true)
  })

  it('are joined and split only by src/protocol/toolNames.ts: no other file does it inline', () => {
    const inline = ['src', 'extension', 'cli', 'machines']
      .flatMap(sourceFiles)
      .filter((file) => !HOMES.has(file))
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            INLINE.some((pattern) => pattern.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
          ),
      )
    expect(inline).toEqual([])
  })

  it('would find a join written inline', () => {
    const written = [
      '  const name = `${plugin.name}_${tool.name}`',
      'tool: `workflow_${name}`',
      "name.split('_')",
    ]
    for (const line of written)
      expect(
        INLINE.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true)
  })
})

// The side panel shows each built-in tool's group and core flag, and nothing else of the tools: its
// bundle gets those facts as one object computed at build time (scripts/toolFacts.mjs), not the tool
// module they are derived from, whose schemas and steps would more than triple the panel's size.
import { execFileSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BROWSER_TOOL_DEFINITIONS } from '../../../src/tools'
import { BROWSER_TOOL_FACTS } from '../../../src/tools/facts'
import { ROOT, waitForBuild } from '../../helpers/daemon'

const SIDEPANEL_JS = join(ROOT, 'dist/extension/sidepanel.js')
/** The panel's bundle was 78 KB before it imported the tool module and 294 KB with it. */
const SIDEPANEL_CAP_BYTES = 110_000

describe('the side panel bundle', () => {
  it(`stays under ${SIDEPANEL_CAP_BYTES / 1000} KB and carries no tool definition`, async () => {
    await waitForBuild(SIDEPANEL_JS)
    expect(statSync(SIDEPANEL_JS).size).toBeLessThan(SIDEPANEL_CAP_BYTES)
    const text = readFileSync(SIDEPANEL_JS, 'utf8')
    // Every tool is named in the facts; no description of one is there.
    for (const tool of BROWSER_TOOL_DEFINITIONS) {
      expect(text, tool.name).toContain(`"${tool.name}"`)
      expect(text, tool.name).not.toContain(tool.description.slice(0, 60))
    }
    expect(text).toContain('// src/tools/facts.ts')
    expect(text).not.toContain('// src/tools/index.ts')
  })

  it('gets the same facts at build time as src/tools/facts.ts derives from the definitions', () => {
    const built: unknown = JSON.parse(
      execFileSync(process.execPath, [join(ROOT, 'scripts/toolFacts.mjs')], { cwd: ROOT, encoding: 'utf8' }),
    )
    expect(built).toEqual(BROWSER_TOOL_FACTS)
    expect(Object.keys(built as object).sort()).toEqual(
      BROWSER_TOOL_DEFINITIONS.map((tool) => tool.name).sort(),
    )
  })
})

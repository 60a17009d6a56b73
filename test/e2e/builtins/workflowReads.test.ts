import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveBridge, type LiveBridge } from '../../helpers/liveBridge'
import type { McpConnection } from '../../helpers/mcpClient'
import { scaled } from '../../helpers/timing'
import { runCli } from '../../integration/cli/runCli'
import { PAGE_CONTENT_CLOSE, PAGE_CONTENT_OPEN } from '../../../src/protocol/pageContent'
import { startWorkflowSite, type WorkflowSite } from '../support/workflowSite'

// A task whose answer is read off the page: what the agent read while it recorded (a search in the
// page's text, an element's text) becomes read steps, and the workflow's one call answers with what
// those steps read this time, as page content, labelled with the site it came from. In real Chromium
// with the real extension; the shop's server makes the page.
const PASSWORD = 'correct horse 7'
const TIMEOUT = scaled(240_000)

interface RunOutput {
  ok: boolean
  steps: number
  read?: { step: number; text: string }[]
  stopped?: { step: number; reason: string; message: string }
}

describe('workflows: read steps give the run its answer', () => {
  let bridge: LiveBridge<WorkflowSite>
  let mcp: McpConnection

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await mcp.client.callTool({ name, arguments: args }, undefined, {
      timeout: scaled(120_000),
    })) as {
      isError?: boolean
      content: { type: string; text: string }[]
      structuredContent?: unknown
      _meta?: Record<string, unknown>
    }
    const text = result.content.find((c) => c.type === 'text')?.text ?? ''
    if (result.isError) throw new Error(`${name} failed: ${text}`)
    return { text, structured: result.structuredContent, meta: result._meta }
  }

  beforeAll(async () => {
    bridge = await startLiveBridge({
      site: startWorkflowSite,
      config: () => ({
        permissions: { browser: { permission: 'auto', groups: ['workflows', 'page'], tools: {} } },
      }),
    })
    mcp = await bridge.connect({ name: 'reader' })
  }, TIMEOUT)
  afterAll(async () => {
    await bridge?.close()
  })

  it(
    'records a find and an element read as read steps, and the run answers with what they read now',
    async () => {
      const site = bridge.site
      await call('browser_recording_start', { name: 'stock_check', description: 'Is it in stock?' })
      await call('browser_navigate', { url: site.url('/login') })
      await call('browser_type', { selector: '#email', text: 'ada@example.com' })
      await call('browser_type', { selector: '#pw', text: PASSWORD })
      await call('browser_click', { selector: 'button' })
      await call('browser_type', { selector: '#q', text: 'lamp', submit: true })
      const found = (await call('browser_find', { text: 'in stock' })).text
      expect(found).toContain('lamp (in stock)')
      expect((await call('browser_get_text', { selector: 'ul' })).text).toContain('lamp (in stock)')
      const stopped = (await call('browser_recording_stop')).structured as { steps: string[] }
      expect(stopped.steps.slice(-2)).toEqual([
        '6. Read the lines that show "in stock"',
        '7. Read the text of list',
      ])

      const set = await runCli(
        ['workflow', 'set', 'stock_check', 'auto', '--port', String(bridge.daemon.port)],
        bridge.configDir,
      )
      expect(set.code, set.stderr).toBe(0)
      await expect
        .poll(async () => (await mcp.client.listTools()).tools.map((t) => t.name), {
          timeout: scaled(30_000),
        })
        .toContain('workflow_stock_check')

      const replayed = await call('workflow_stock_check', { password: PASSWORD, search: 'desk' })
      const output = replayed.structured as RunOutput
      expect(output.ok).toBe(true)
      expect(output.read?.map((r) => r.step)).toEqual([6, 7])
      expect(output.read?.[0]?.text).toContain('desk (in stock)')
      expect(output.read?.[0]?.text).not.toContain('lamp')
      expect(output.read?.[1]?.text).toContain('desk (in stock)')
      // What the steps read is the page's: marked as page content, labelled with the site's origin.
      expect(replayed.text.startsWith(PAGE_CONTENT_OPEN)).toBe(true)
      expect(replayed.text.trimEnd().endsWith(PAGE_CONTENT_CLOSE)).toBe(true)
      expect(replayed.meta?.['bridge/origins']).toEqual([new URL(site.url('/')).origin])
      expect(replayed.text).not.toContain(PASSWORD)

      // From the CLI the run prints what it read.
      const cli = await runCli(
        [
          'workflow',
          'run',
          'stock_check',
          '--var',
          `password=${PASSWORD}`,
          '--var',
          'search=chair',
          '--port',
          String(bridge.daemon.port),
        ],
        bridge.configDir,
        {},
        scaled(180_000),
      )
      expect(cli.code, cli.stderr + cli.stdout).toBe(0)
      expect(cli.stdout).toContain('chair (in stock)')
    },
    TIMEOUT,
  )
})

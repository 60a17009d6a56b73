import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveBridge, type LiveBridge } from '../../helpers/liveBridge'
import type { McpConnection } from '../../helpers/mcpClient'
import { scaled } from '../../helpers/timing'
import { startWorkflowSite, type WorkflowSite } from '../support/workflowSite'

// The steps beyond typing and clicking, recorded from an agent's calls and replayed in real Chromium
// with the real extension: a form filled at once (a password among its fields), a file from an
// allowed upload folder, a drag, a link that opens a tab (followed), a switch back to the first tab,
// and a site's own tool (WebMCP) called under its own permission. The site's server judges.
const PIN = '8642-secret'
const TIMEOUT = scaled(240_000)

interface RunResult {
  ok: boolean
  steps: number
  stopped?: { step: number; reason: string; message: string }
}

describe('workflows: fill, upload, drag, a new tab, a tab switch and a site tool', () => {
  let bridge: LiveBridge<WorkflowSite>
  let mcp: McpConnection
  let uploads: string
  let toolName: string

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await mcp.client.callTool({ name, arguments: args }, undefined, {
      timeout: scaled(120_000),
    })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown }
    const text = result.content.find((c) => c.type === 'text')?.text ?? ''
    if (result.isError) throw new Error(`${name} failed: ${text}`)
    return { text, structured: result.structuredContent }
  }
  const replay = async (args: Record<string, unknown>) =>
    (await call('workflow_profile_flow', args)).structured as RunResult

  beforeAll(async () => {
    bridge = await startLiveBridge({
      site: startWorkflowSite,
      webmcp: true,
      config: ({ configDir, site }) => {
        uploads = join(configDir, 'uploads')
        mkdirSync(uploads, { recursive: true })
        return {
          permissions: { browser: { permission: 'auto', groups: ['workflows', 'forms'], tools: {} } },
          sites: { [new URL(site.url('/')).origin]: { permission: 'auto' } },
          uploadFolders: [uploads],
        }
      },
    })
    mcp = await bridge.connect({ name: 'recorder' })
  }, TIMEOUT)
  afterAll(async () => {
    await bridge?.close()
  })

  it(
    'records each filled field as a step, the password as a secret with no value, the upload, the drag, the new tab and the site tool',
    async () => {
      const site = bridge.site
      writeFileSync(join(uploads, 'avatar.txt'), 'first avatar')
      await call('browser_recording_start', { name: 'profile_flow', description: 'Save a profile' })
      await call('browser_navigate', { url: site.url('/profile') })
      const listed = (await call('browser_list_tabs', { urlContains: '/profile' })).structured as {
        tabs: { tabId: number }[]
      }
      const first = listed.tabs[0]!.tabId
      await call('browser_fill_form', {
        fields: [
          { selector: '#nick', value: 'Ada' },
          { selector: '#pin', value: PIN },
          { selector: '#news', value: true },
        ],
      })
      await call('browser_upload_file', { selector: '#avatar', paths: [join(uploads, 'avatar.txt')] })
      await call('browser_drag', { fromSelector: '#card', toSelector: '#done' })
      await call('browser_click', { selector: '#save' })
      await expect.poll(() => site.profile.saved.length, { timeout: scaled(10_000) }).toBe(1)
      const clicked = (await call('browser_click', { selector: 'a[target=_blank]' })).text
      const opened = Number(/Opened tab (\d+)/.exec(clicked)?.[1])
      expect(opened).toBeGreaterThan(0)
      await call('browser_click', { tabId: opened, selector: '#confirm' })
      await expect
        .poll(
          async () => {
            const tools = (await mcp.client.listTools()).tools
            toolName = tools.find((t) => t.name.endsWith('__add_note'))?.name ?? ''
            return toolName
          },
          { timeout: scaled(30_000) },
        )
        .not.toBe('')
      await call(toolName, { text: 'first note' })
      await call('browser_focus_tab', { tabId: first })
      await call('browser_click', { tabId: first, selector: '#finish' })
      expect(site.profile).toMatchObject({
        saved: [{ nick: 'Ada', pin: PIN, news: true, avatar: 'first avatar', board: 'done' }],
        receipts: 1,
        notes: ['first note'],
        finished: 1,
      })

      const stopped = (await call('browser_recording_stop')).structured as {
        steps: string[]
        variables: string[]
        notRecorded?: string[]
      }
      expect(stopped.notRecorded).toBeUndefined()
      expect(stopped.variables).toEqual(['nickname', 'pin (secret, not stored)', 'text'])
      expect(stopped.steps).toEqual([
        `1. Go to ${site.url('/profile')}`,
        '2. Fill textbox "Nickname" with {{nickname}}',
        '3. Fill textbox "PIN" with {{pin}}',
        '4. Check checkbox "Newsletter"',
        `5. Upload ${join(uploads, 'avatar.txt')} to button "Avatar"`,
        '6. Drag div#card onto div#done',
        '7. Click button "Save profile"',
        '8. Click link "Open receipt", which opens a tab',
        `9. Switch to the tab at ${site.url('/receipt')}`,
        '10. Click button "Confirm receipt"',
        `11. Call ${toolName}`,
        `12. Switch to the tab at ${site.url('/profile')}`,
        '13. Click button "Finish"',
      ])
      const file = join(bridge.configDir, 'workflows', 'profile_flow.json')
      const text = readFileSync(file, 'utf8')
      expect(text).not.toContain(PIN)
      const saved = JSON.parse(text) as {
        variables: { name: string; secret: boolean; default?: string }[]
        steps: { action: string; post?: { tab?: string }; input?: unknown }[]
      }
      expect(saved.variables.find((v) => v.name === 'pin')).toEqual({ name: 'pin', secret: true })
      expect(saved.steps[7]!.post?.tab).toBe(site.url('/receipt'))
      expect(saved.steps[10]).toMatchObject({ action: 'tool', input: { text: '{{text}}' } })
    },
    TIMEOUT,
  )

  it(
    'replays with other values: the file read again from the upload folder, the new tab followed, the site tool called as the agent',
    async () => {
      const site = bridge.site
      expect((await bridge.cli(['workflow', 'set', 'profile_flow', 'auto'])).code).toBe(0)
      writeFileSync(join(uploads, 'avatar.txt'), 'second avatar')
      const result = await replay({ nickname: 'Grace', pin: '1357', text: 'second note' })
      // It ends in the tab it began in (step 12 switches back): no tab id is news to the agent.
      expect(result, JSON.stringify(result)).toEqual({ ok: true })
      expect(site.profile.saved[1]).toEqual({
        nick: 'Grace',
        pin: '1357',
        news: true,
        avatar: 'second avatar',
        board: 'done',
      })
      expect(site.profile).toMatchObject({ receipts: 2, notes: ['first note', 'second note'], finished: 2 })
      // The site's tool ran as a call of its own, audited under the client that ran the workflow.
      const audit = async (tool: string) =>
        (await (await bridge.daemon.fetch(`/audit?tool=${encodeURIComponent(tool)}&limit=50`)).json()) as {
          client?: string
          success: boolean
          step?: number
        }[]
      const runs = (await audit('workflow_profile_flow')).filter((e) => e.step === undefined)
      expect(runs).toHaveLength(1)
      expect((await audit(toolName)).filter((e) => e.success).map((e) => e.client)).toEqual([
        runs[0]!.client,
        runs[0]!.client,
      ])
    },
    TIMEOUT,
  )

  it(
    'stops at the click when the link no longer opens a tab',
    async () => {
      const site = bridge.site
      site.variant = 'sametab'
      try {
        const result = await replay({ pin: '1357' })
        expect(result.ok).toBe(false)
        expect(result.stopped, JSON.stringify(result)).toMatchObject({ step: 8, reason: 'post_condition' })
        expect(result.stopped?.message).toContain('no new tab opened')
      } finally {
        site.variant = 'original'
      }
    },
    TIMEOUT,
  )

  it(
    'calls the site tool under its own permission: with the site turned off the run stops there, and the tool does not run',
    async () => {
      const site = bridge.site
      const origin = new URL(site.url('/')).origin
      expect((await bridge.cli(['site', 'set', origin, 'off'])).code).toBe(0)
      const notes = site.profile.notes.length
      const result = await replay({ pin: '1357', text: 'not allowed' })
      expect(result.ok).toBe(false)
      expect(result.stopped, JSON.stringify(result)).toMatchObject({ step: 11, reason: 'action_failed' })
      // A site turned off has no tools for agents: the planned call is refused as for any agent.
      expect(result.stopped?.message).toContain(`unknown_tool: no tool named "${toolName}"`)
      expect(site.profile.notes).toHaveLength(notes)
    },
    TIMEOUT,
  )
})

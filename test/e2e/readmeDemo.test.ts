// The README's "Five minutes with the demo site", step by step as a person follows it: the two
// terminal commands, then each numbered step in Chromium with the real extension that `bridge start`
// installed, checking that the panel shows what the step promises. The README's words that a step
// checks are asserted to be in the README, so the walkthrough cannot drift from what a person sees.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserHarness } from '../helpers/browser'
import { ROOT, daemonEnv, startDaemon, tempConfigDir, type RunningDaemon } from '../helpers/daemon'
import { textOf } from '../helpers/mcpClient'
import { runCli } from '../integration/cli/runCli'

const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const DEMO = README.slice(
  README.indexOf('## Five minutes with the demo site'),
  README.indexOf('\n## ', README.indexOf('## Five minutes with the demo site') + 5),
)
/** The numbered step `n` of the walkthrough, joined into one line. */
const step = (n: number): string =>
  (new RegExp(`\\n${n}\\. ([\\s\\S]*?)(?=\\n\\d\\. |\\n\\n)`).exec(DEMO)?.[1] ?? '').replace(/\s*\n\s*/g, ' ')

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })

describe('the README demo walkthrough', { timeout: 180_000 }, () => {
  let configDir: string
  let daemon: RunningDaemon
  let demo: ChildProcess | undefined
  let siteUrl: string
  let browser: BrowserHarness
  let panel: Page
  let notesTab: Page
  let agent: Client
  let printedConfig: { url: string; headers: Record<string, string> }

  const card = () => panel.getByTestId('plugin-notes')
  const tabState = () => card().getByTestId('tab-state').textContent()
  const call = (name: string, args: Record<string, unknown> = {}) => agent.callTool({ name, arguments: args })

  beforeAll(() => {
    configDir = tempConfigDir()
  })
  afterAll(async () => {
    await agent?.close()
    await browser?.close()
    demo?.kill('SIGTERM')
    await daemon?.stop()
    rmSync(configDir, { recursive: true, force: true })
  })

  it('runs the two commands of the walkthrough', async () => {
    const commands = /```sh\n([\s\S]*?)```/.exec(DEMO)?.[1] ?? ''
    expect(commands).toContain('npx -y @bridge-mcp/bridge start')
    expect(commands).toContain('npx -y @bridge-mcp/bridge demo')
    expect(DEMO).toContain('in a checkout, `npm ci && npm start` and\n`npm run demo`')

    // 1: `bridge start` (this checkout's build: the package's program); it prints the extension folder
    // and the MCP configuration. A free port stands in for 9515, a temp folder for ~/.bridge.
    daemon = await startDaemon({ via: 'cli', configDir, args: ['--port', String(await freePort())] })
    await daemon.waitForOutput(/Load unpacked[\s\S]*\n {2}\S+extension\n/)
    expect(daemon.output()).toContain(`  ${join(configDir, 'extension')}\n`)
    const json = /\{\n\s+"mcpServers"[\s\S]*?\n\}/.exec(daemon.output())?.[0] ?? '{}'
    printedConfig = (JSON.parse(json) as { mcpServers: { bridge: typeof printedConfig } }).mcpServers.bridge
    expect(printedConfig.url).toBe(`http://127.0.0.1:${daemon.port}/mcp`)

    // 2: `bridge demo` (what `npm run demo` runs), the site on a free port for 8787: it installs the demo
    // plugin from the package's files, the running daemon loads it, and the site answers.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { demo: string } }
    expect(pkg.scripts.demo).toBe('node dist/cli/bridge.js demo')
    demo = spawn(
      process.execPath,
      [join(ROOT, 'dist', 'cli', 'bridge.js'), 'demo', '--site-port', String(await freePort())],
      {
        cwd: ROOT,
        env: daemonEnv(configDir, 'node', { BRIDGE_PORT: String(daemon.port), PORT: undefined }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    demo.stdout?.on('data', (c: Buffer) => (out += c.toString()))
    demo.stderr?.on('data', (c: Buffer) => (out += c.toString()))
    await expect
      .poll(() => out, { timeout: 60_000, interval: 200 })
      .toMatch(/The demo notes site runs on http:\/\/127\.0\.0\.1:\d+ /)
    siteUrl = /The demo notes site runs on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? ''
    expect(out).toContain(`The daemon on port ${daemon.port} loaded it.`)
    const me = await fetch(`${siteUrl}/api/me`)
    expect(me.status).toBe(401)
  })

  it('1: the side panel says Connected and lists Demo Notes with "No tab open"', async () => {
    expect(step(1)).toContain('the side panel says **Connected** and lists **Demo Notes** with "No tab open"')
    browser = await launchBrowser({ extensionDir: join(configDir, 'extension') })
    panel = await browser.openSidePanel()
    await expect
      .poll(() => panel.getByTestId('connection-status').textContent(), { timeout: 20_000 })
      .toBe('Connected')
    await expect.poll(() => card().locator('strong').first().textContent()).toBe('Demo Notes')
    expect(await tabState()).toBe('No tab open')
  })

  it('2: after signing in the plugin shows Not ready, since its tools are still off', async () => {
    expect(step(2)).toContain('sign in with any name: the plugin shows **Not ready**')
    notesTab = await browser.newPage(siteUrl)
    await notesTab.getByLabel('User name').fill('ada')
    await notesTab.getByRole('button', { name: 'Sign in' }).click()
    await notesTab.waitForSelector('main[data-user="ada"]')
    await expect.poll(tabState, { timeout: 20_000 }).toBe('Not ready')
  })

  it('3: All tools to ask, then Reload tab beside the tab open from before: Ready', async () => {
    expect(step(3)).toContain('set **All tools** of Demo Notes to **ask**')
    expect(step(3)).toContain(
      'the panel shows **Reload tab** beside it: click it, and the plugin turns **Ready**',
    )
    await panel.bringToFront()
    await card().getByTestId('plugin-permission-ask').click()
    const reload = card().getByTestId('reload-tab')
    await expect.poll(() => reload.textContent(), { timeout: 20_000 }).toBe('Reload tab')
    await reload.click()
    await expect.poll(tabState, { timeout: 30_000 }).toBe('Ready')
    expect(await card().getByTestId('stale-tab').count()).toBe(0)
    expect(step(3)).toContain('(`bridge status` shows the same)')
    const status = await runCli(['status', '--port', String(daemon.port)], configDir)
    expect(status.stdout).toMatch(/\n\s+notes\s+ready\s+5 tools\s+local\n/)
  })

  it('4: the agent with the printed configuration asks; Allow once, Deny and Always allow do what they say', async () => {
    expect(step(4)).toContain(
      'under **Approval needed** with its arguments; click **Allow once** and the agent gets the notes',
    )
    expect(step(4)).toContain(
      '**Deny** returns an `approval_denied` error; **Always allow** sets the tool to `auto`',
    )
    agent = new Client({ name: 'my-agent', version: '1.0.0' })
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(printedConfig.url), {
        requestInit: { headers: printedConfig.headers },
      }),
    )
    const approval = panel.getByTestId('approval')
    const approvals = panel.getByTestId('approvals')

    const listed = call('notes_list_notes', { limit: 10 })
    await expect.poll(() => approval.count(), { timeout: 15_000 }).toBe(1)
    expect(await approvals.textContent()).toContain('Approval needed')
    expect(await approval.getByTestId('approval-tool').textContent()).toBe('notes_list_notes')
    expect(JSON.parse((await approval.getByTestId('approval-params').textContent()) ?? '')).toEqual({
      limit: 10,
    })
    await approval.getByRole('button', { name: 'Allow once' }).click()
    const notes = await listed
    expect(notes.isError).toBeFalsy()
    expect(JSON.parse(textOf(notes))).toHaveProperty('notes')

    const denied = call('notes_list_notes', {})
    await expect.poll(() => approval.count(), { timeout: 15_000 }).toBe(1)
    await approval.getByRole('button', { name: 'Deny' }).click()
    expect(textOf(await denied)).toMatch(/^\[approval_denied\]/)
    // The denied call never ran, yet Recent activity shows it at once, without reopening the panel.
    const latest = panel.getByTestId('audit-entry').first()
    await expect.poll(() => latest.getAttribute('data-success'), { timeout: 10_000 }).toBe('false')
    expect(await latest.getByTestId('audit-error').textContent()).toContain('[approval_denied]')

    const always = call('notes_list_notes', {})
    await expect.poll(() => approval.count(), { timeout: 15_000 }).toBe(1)
    await approval.getByRole('button', { name: 'Always allow' }).click()
    expect((await always).isError).toBeFalsy()
    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
      permissions: { notes: { tools?: Record<string, string> } }
    }
    expect(config.permissions.notes.tools?.list_notes).toBe('auto')
    expect((await call('notes_list_notes', {})).isError).toBeFalsy()
    expect(await approval.count()).toBe(0)
  })

  it('5: Recent activity and bridge audit list each call with its outcome, the denied one too', async () => {
    expect(step(5)).toContain(
      '**Recent activity** in the panel, and `bridge audit`, list each call with its outcome',
    )
    // The panel is not reopened: what it lists arrived while it was open.
    const entries = panel.getByTestId('audit-entry')
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(4)
    const outcomes = await entries.evaluateAll((items) => items.map((i) => i.getAttribute('data-success')))
    expect(outcomes).toEqual(['true', 'true', 'false', 'true'])
    expect(await entries.nth(2).getByTestId('audit-error').textContent()).toContain('[approval_denied]')
    // The calls that asked say how long they waited for the person, apart from their own duration.
    expect(await entries.nth(3).getByTestId('audit-approval').textContent()).toMatch(
      / · \d+ (ms|s) waiting for you$/,
    )
    expect(await entries.nth(0).getByTestId('audit-approval').count()).toBe(0)
    const audit = await runCli(['audit', '--port', String(daemon.port)], configDir)
    expect(audit.code).toBe(0)
    expect(audit.stdout.match(/notes_list_notes/g)).toHaveLength(4)
    expect(audit.stdout).toContain('approval_denied')
  })
})

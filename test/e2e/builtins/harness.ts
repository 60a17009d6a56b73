// One Chromium per test file with the built extension loaded, its service worker bundled together with
// a test hook, and helpers to run built-in tools inside that worker.
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Page, Worker } from 'playwright-core'
import { BROWSER_TOOLS } from '../../../src/tools'
import { compileSchema } from '../../../src/validation'
import { launchBrowser, prepareExtensionCopy, type BrowserHarness } from '../../helpers/browser'
import { bundleTestWorker } from '../../helpers/testWorker'
import { startFixtureSite, type FixtureSite } from './fixtureSite'

export type ToolResult =
  | { ok: true; value: unknown; progress: { progress: number; total?: number; message?: string }[] }
  | { ok: false; error: { code: string; message: string; category?: string; retryable?: boolean } }

/** Who makes a call, as tool.dispatch names it. */
export interface Caller {
  client?: string
  session?: string
}

export interface BuiltinsHarness {
  browser: BrowserHarness
  site: FixtureSite
  /** Calls runBuiltinTool in the service worker, as the dispatcher does for `tool.dispatch`. */
  call(tool: string, input?: Record<string, unknown>): Promise<ToolResult>
  /** Like call, as the dispatcher runs a call that carries the MCP client's name and session. */
  callAs(caller: Caller, tool: string, input?: Record<string, unknown>): Promise<ToolResult>
  /** Like call, but fails the test with the tool's error message when the tool fails. */
  ok<T = unknown>(tool: string, input?: Record<string, unknown>): Promise<T>
  /** Like call, but expects a failure and returns it. */
  fails(
    tool: string,
    input?: Record<string, unknown>,
  ): Promise<{ code: string; message: string; category?: string }>
  /** The Playwright page showing `url` (the newest one), waiting until Playwright has seen it. */
  pageAt(url: string): Promise<Page>
  /** Points a tab at any URL as the user could (agents cannot reach chrome:// pages themselves). */
  setTabUrl(tabId: number, url: string): Promise<void>
  close(): Promise<void>
}

/** The few extension APIs the helpers below use inside the worker (the test tsconfig has no Chrome types). */
interface WorkerChrome {
  tabs: {
    update(tabId: number, props: { url: string }): Promise<unknown>
    get(tabId: number): Promise<{ url?: string; status?: string }>
  }
}

const root = join(import.meta.dirname, '..', '..', '..')

/** Rebuilds the worker (with the test hook) and the page library from source into the extension copy. */
async function bundleBuiltinsWorker(dir: string): Promise<void> {
  await build({
    entryPoints: [join(root, 'extension', 'builtins', 'pageLibrary', 'index.ts')],
    outfile: join(dir, 'builtinsPage.js'),
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'warning',
  })
  // The real background plus a handle on runBuiltinTool.
  await bundleTestWorker(dir, {
    lines: [
      "import { runBuiltinTool } from './extension/builtins'",
      "import { SETTLE } from './extension/builtins/actionReport'",
      'globalThis.__bridgeTest = { runBuiltinTool, SETTLE }',
    ],
  })
}

/**
 * A result of a tool that declares its output must have that shape: the daemon would answer
 * invalid_output otherwise, so every call here checks it as the daemon does.
 */
function assertDeclaredShape(tool: string, result: ToolResult): ToolResult {
  const schema = BROWSER_TOOLS.find((t) => t.name === tool)?.outputSchema
  if (!result.ok || !schema) return result
  const compiled = compileSchema(schema, 'output')
  const checked = compiled.ok ? compiled.value(result.value) : compiled
  if (!checked.ok)
    throw new Error(`${tool} returned a result its declared output schema refuses: ${checked.message}`)
  return result
}

async function invoke(
  sw: Worker,
  tool: string,
  input: Record<string, unknown>,
  caller: Caller = {},
): Promise<ToolResult> {
  return assertDeclaredShape(tool, await run(sw, tool, input, caller))
}

async function run(
  sw: Worker,
  tool: string,
  input: Record<string, unknown>,
  caller: Caller,
): Promise<ToolResult> {
  return sw.evaluate(
    async ([name, args, who]) => {
      const progress: { progress: number; total?: number; message?: string }[] = []
      const hook = (
        globalThis as unknown as {
          __bridgeTest: { runBuiltinTool: (t: string, i: unknown, c: unknown) => Promise<unknown> }
        }
      ).__bridgeTest
      try {
        const value = await hook.runBuiltinTool(name, args, {
          ...who,
          dispatchId: 'test',
          progress: (p: number, total?: number, message?: string) =>
            progress.push({ progress: p, total, message }),
          log: () => undefined,
        })
        return { ok: true as const, value, progress }
      } catch (err) {
        const e = err as { code: string; message: string; category?: string; retryable?: boolean }
        return {
          ok: false as const,
          error: { code: e.code, message: e.message, category: e.category, retryable: e.retryable },
        }
      }
    },
    [tool, input, caller] as const,
  )
}

export async function startBuiltinsHarness(): Promise<BuiltinsHarness> {
  const site = await startFixtureSite()
  // Port 1 and a dummy secret: no daemon here, the background's connection just keeps retrying.
  const extensionDir = prepareExtensionCopy({ port: 1, secret: '0'.repeat(64) })
  await bundleBuiltinsWorker(extensionDir)
  let browser: BrowserHarness
  try {
    browser = await launchBrowser({ extensionDir })
  } catch (err) {
    rmSync(extensionDir, { recursive: true, force: true })
    await site.close()
    throw err
  }
  const call = async (tool: string, input: Record<string, unknown> = {}) =>
    invoke(await browser.serviceWorker(), tool, input)
  return {
    browser,
    site,
    call,
    callAs: async (caller, tool, input = {}) => invoke(await browser.serviceWorker(), tool, input, caller),
    async ok<T>(tool: string, input: Record<string, unknown> = {}) {
      const result = await call(tool, input)
      if (!result.ok)
        throw new Error(
          `${tool} failed: [${result.error.code}/${result.error.category}] ${result.error.message}`,
        )
      return result.value as T
    },
    async fails(tool: string, input: Record<string, unknown> = {}) {
      const result = await call(tool, input)
      if (result.ok)
        throw new Error(
          `${tool} succeeded but a failure was expected: ${JSON.stringify(result.value).slice(0, 500)}`,
        )
      return result.error
    },
    async pageAt(url) {
      for (let i = 0; i < 100; i++) {
        const page = browser.context.pages().findLast((p) => p.url() === url)
        if (page) return page
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`Playwright has no page at ${url}`)
    },
    async setTabUrl(tabId, url) {
      const sw = await browser.serviceWorker()
      await sw.evaluate(
        async ([id, target]) => {
          const { chrome } = globalThis as unknown as { chrome: WorkerChrome }
          await chrome.tabs.update(id, { url: target })
          for (let i = 0; i < 100; i++) {
            const tab = await chrome.tabs.get(id)
            if (tab.url?.startsWith(target) && tab.status === 'complete') return
            await new Promise((resolve) => setTimeout(resolve, 50))
          }
          throw new Error(`tab ${id} did not load ${target}`)
        },
        [tabId, url] as const,
      )
    },
    async close() {
      try {
        await browser.close()
      } finally {
        rmSync(extensionDir, { recursive: true, force: true })
        await site.close()
      }
    },
  }
}

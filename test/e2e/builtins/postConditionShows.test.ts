import { join } from 'node:path'
import { build } from 'esbuild'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postConditionOf } from '../../../src/workflows/postCondition'
import { CHROMIUM_PATH } from '../../helpers/browser'

// A workflow step's post-condition is read from the outline (src/workflows/postCondition.ts) and checked
// on replay by the page library (postMisses). Both must mean the same by "the page shows": a line the
// recorder takes from a name that markup gives (a frame's title, an image's alt, an aria-label) is not
// in the page's text, and a replay once stopped on `iframe "Gift note"` that was plainly there; a table
// row's line joins its cells with " | ", which the page's text does not.
const PAGE = `<!doctype html><title>Shows</title>
<h1>Order</h1>
<p>Three items in your cart</p>
<iframe title="Gift note" srcdoc="<p>inside</p>" style="width:200px;height:40px"></iframe>
<img alt="Shop logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10">
<button aria-label="Close the banner">x</button>
<nav aria-label="Breadcrumbs"><a href="#">Home</a></nav>
<div role="status">Saved a minute ago</div>
<input placeholder="Search the shop">
<table><tr><th>Order</th><th>Name</th><th>Total</th></tr><tr><td>#0347</td><td>Grace Hopper</td><td>249.00</td></tr></table>
<div hidden aria-label="Hidden panel">nothing</div>`

interface PageResult<T> {
  ok: boolean
  value: T
  message?: string
}

describe('a post-condition the recorder takes from the outline is one the replay sees', () => {
  let browser: Browser
  let page: Page
  const run = async <T>(op: string, args: unknown): Promise<T> => {
    const result = await page.evaluate(
      ([o, a]) =>
        (
          globalThis as unknown as { __bridgeBuiltins: { run(op: string, args: unknown): unknown } }
        ).__bridgeBuiltins.run(o, a),
      [op, args] as const,
    )
    const r = result as PageResult<T>
    if (!r.ok) throw new Error(`${op}: ${r.message}`)
    return r.value
  }

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [join(import.meta.dirname, '../../../extension/builtins/pageLibrary/index.ts')],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'chrome120',
      logLevel: 'warning',
    })
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] })
    page = await browser.newPage()
    await page.setContent(PAGE)
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text })
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('finds every named line of the outline, whether its name is text or markup', async () => {
    const { text } = await run<{ text: string }>('snapshot', { walkLimit: 10_000 })
    const checked: string[] = []
    for (const line of text.split('\n')) {
      const post = postConditionOf(`Changed on the page:\n${line}`)
      if (!post?.appeared) continue
      checked.push(...post.appeared)
      expect(await run<string[]>('postMisses', { post, checkUrl: false }), line).toEqual([])
    }
    // The names from markup are among the lines checked, so the test holds the case it is for.
    expect(checked).toEqual(
      expect.arrayContaining(['Shop logo', 'Close the banner', 'Order', '#0347 | Grace Hopper | 249.00']),
    )
  })

  it("sees a frame's title, as files recorded before frames' lines were left out may hold it", async () => {
    expect(await run<string[]>('postMisses', { post: { appeared: ['Gift note'] }, checkUrl: false })).toEqual(
      [],
    )
  })

  it('still reports a line the page does not show, and a name of an element nobody sees', async () => {
    expect(
      await run<string[]>('postMisses', {
        post: { appeared: ['Four items', 'Hidden panel'] },
        checkUrl: false,
      }),
    ).toEqual(['the page does not show "Four items"', 'the page does not show "Hidden panel"'])
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBuiltinsHarness, type BuiltinsHarness } from './harness'

interface Tab {
  tabId: number
  url: string
  title: string
}

/** The ref of the first snapshot line that contains `needle`. */
function refOf(snapshot: string, needle: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(needle))
  const ref = line && /\[ref=(e\d+)\]/.exec(line)?.[1]
  if (!ref) throw new Error(`no ref for ${needle} in:\n${snapshot}`)
  return ref
}

describe('built-in page reading and input tools in real Chromium', () => {
  let h: BuiltinsHarness
  beforeAll(async () => {
    h = await startBuiltinsHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  const open = (path: string) => h.ok<Tab>('browser_open_tab', { url: h.site.url(path) })
  const text = async (tabId: number, selector: string) =>
    (await h.ok<{ text: string }>('browser_get_text', { tabId, selector })).text

  it('browser_snapshot outlines the page compactly: one space per level, refs only on what can be acted on, hidden content left out', async () => {
    const tab = await open('/')
    const snap = await h.ok<string>('browser_snapshot', { tabId: tab.tabId })
    expect(snap).toContain(`URL: ${h.site.url('/')}`)
    expect(snap).toContain('Title: Fixture home')
    expect(snap).toMatch(/^- banner:\n - navigation "Main":\n {2}- link "Form page" \[ref=e\d+\] -> \/form$/m)
    expect(snap).toMatch(/^ - heading "Welcome to the fixture" \[level=1\]$/m)
    expect(snap).toMatch(/^ - text: This paragraph has bold words\.$/m)
    expect(snap).toMatch(/^ {2}- listitem: First item$/m)
    expect(snap).toMatch(/^ - img "Tiny logo"$/m)
    expect(snap).toMatch(/- clickable "Clickable card" \[ref=e\d+\]/)
    expect(snap).not.toContain('Hidden button')
    // Every ref is on a link, a control or a clickable element.
    for (const line of snap.split('\n').filter((l) => l.includes('[ref=')))
      expect(line).toMatch(/- (link|clickable|button|textbox) /)
    expect(await h.ok('browser_get_text', { tabId: tab.tabId, selector: 'h1' })).toEqual({
      text: 'Welcome to the fixture',
      length: 22,
      truncated: false,
    })
    expect(await h.ok('browser_get_html', { tabId: tab.tabId, selector: 'h1' })).toEqual({
      html: '<h1>Welcome to the fixture</h1>',
      length: 31,
      truncated: false,
    })
  })

  it('browser_snapshot shows form fields with values and states, a select named by its label with its options on its line; passwords stay masked', async () => {
    const tab = await open('/form')
    await h.ok('browser_type', { tabId: tab.tabId, selector: 'input[name=password]', text: 'hunter2' })
    const snap = await h.ok<string>('browser_snapshot', { tabId: tab.tabId })
    expect(snap).toMatch(/- textbox "Email" \[ref=e\d+\]/)
    expect(snap).toMatch(/- textbox "Password" \[focused\] \[ref=e\d+\]: ••••••/)
    expect(snap).not.toContain('hunter2')
    expect(snap).toMatch(/- textbox "Bio" \[ref=e\d+\]: old text/)
    expect(snap).toMatch(/^ - combobox "Color" \[ref=e\d+\]: Red \[options: Red \| Green \| Blue\]$/m)
    expect(snap).not.toMatch(/- option/)
    expect(snap).toMatch(/- checkbox "I agree" \[ref=e\d+\]/)
    expect(snap).toMatch(/- button "Create account" \[ref=e\d+\]/)
  })

  it('browser_snapshot reports ARIA roles and states, enters iframes and skips aria-hidden and invisible content', async () => {
    const tab = await open('/aria')
    const snap = await h.ok<string>('browser_snapshot', { tabId: tab.tabId })
    expect(snap).toMatch(/^- button "Bold" \[pressed\] \[ref=e\d+\]$/m)
    expect(snap).toMatch(/^- button "Disabled action" \[disabled\] \[ref=e\d+\]$/m)
    expect(snap).toMatch(/^- button "Menu" \[collapsed\] \[ref=e\d+\]$/m)
    expect(snap).toMatch(/^- dialog "Settings": checkbox "Dark mode" \[checked\] \[ref=e\d+\]$/m)
    expect(snap).toMatch(/^- group \[collapsed\]: button "More details" \[ref=e\d+\]$/m)
    expect(snap).toMatch(
      /^- iframe "Embedded frame" \[ref=e\d+\]:\n - document "about:srcdoc"\n - button "In frame" \[ref=f\d+e\d+\]$/m,
    )
    expect(snap).toMatch(/^- slider "Volume" \[ref=e\d+\]: 30$/m)
    // A select inside its label is named by the label's own text, not with its options.
    expect(snap).toMatch(
      /^- combobox "Country" \[ref=e\d+\]: Choose… \[options: Choose… \| Germany \| France\]$/m,
    )
    expect(snap).toMatch(/^- table "Prices":\n - caption: Prices\n - row: Item \| Tea$/m)
    expect(snap).toMatch(/^- link "Script link" \[ref=e\d+\]$/m)
    expect(snap).toContain('- text: Peeking text')
    for (const hidden of ['Ghost button', 'Invisible button', 'Hidden until opened'])
      expect(snap).not.toContain(hidden)
  })

  it('browser_snapshot of a page with 20000 elements fills its byte budget, one row per line, and a cursor gives the rest', async () => {
    const tab = await open('/big')
    const snap = await h.ok<string>('browser_snapshot', { tabId: tab.tabId, maxLength: 5_000 })
    const bytes = Buffer.byteLength(snap)
    // One budget on the final text: never over it, and never cut short of it by more than a line.
    expect(bytes).toBeLessThanOrEqual(5_000)
    expect(bytes).toBeGreaterThan(5_000 - 200)
    expect(snap).toMatch(
      /^ {2}- listitem: Row 0 link "open 0" \[ref=e\d+\] -> \/r\/0 button "Delete 0" \[ref=e\d+\]$/m,
    )
    const marker =
      /\[cut at maxLength \(5000 bytes\): lines 1-(\d+) of more than \d+; the rest: browser_snapshot with cursor: (\d+); or pass selector for one part, depth to leave out nesting, or use browser_find\]$/.exec(
        snap,
      )
    expect(marker).not.toBeNull()
    const lastRow = Number(/Row (\d+) link[^\n]*\n\[cut/.exec(snap)?.[1])
    const rest = await h.ok<string>('browser_snapshot', {
      tabId: tab.tabId,
      maxLength: 5_000,
      cursor: Number(marker![2]),
    })
    expect(rest).toContain(`[from line ${Number(marker![2]) + 1}]`)
    expect(rest).toMatch(new RegExp(`^\\[from line \\d+\\]\\n {2}- listitem: Row ${lastRow + 1} `, 'm'))
    expect(Buffer.byteLength(rest)).toBeLessThanOrEqual(5_000)
    // The schema's maximum is the daemon's result cap.
    expect(
      (await h.ok<string>('browser_snapshot', { tabId: tab.tabId, maxLength: 102_400 })).length,
    ).toBeGreaterThan(90_000)
    const part = await h.ok<string>('browser_snapshot', { tabId: tab.tabId, selector: 'li:nth-child(4000)' })
    expect(part).toMatch(
      /^- listitem: Row 3999 link "open 3999" \[ref=e\d+\] -> \/r\/3999 button "Delete 3999" \[ref=e\d+\]$/m,
    )
  })

  it('browser_snapshot enters closed shadow roots, honours selector and maxLength with a truncation marker', async () => {
    const shadow = await open('/shadow')
    expect(await h.ok<string>('browser_snapshot', { tabId: shadow.tabId })).toMatch(
      /- button "Inside shadow" \[ref=e\d+\]/,
    )
    const form = await open('/form')
    const part = await h.ok<string>('browser_snapshot', { tabId: form.tabId, selector: 'form' })
    expect(part).toContain('Create account')
    expect(part).not.toContain('Save draft')
    const cut = await h.ok<string>('browser_snapshot', { tabId: form.tabId, maxLength: 300 })
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(300)
    expect(cut.split('\n').at(-1)).toMatch(/^\[cut at .*cursor: \d+/)
    expect((await h.fails('browser_snapshot', { tabId: form.tabId, selector: '#nope' })).category).toBe(
      'not_found',
    )
  })

  it('browser_click on a snapshot ref clicks with a trusted event and returns what changed', async () => {
    const tab = await open('/form')
    const snap = await h.ok<string>('browser_snapshot', { tabId: tab.tabId })
    const result = await h.ok<string>('browser_click', { tabId: tab.tabId, ref: refOf(snap, 'Save draft') })
    expect(result).toContain('- text: trusted click')
    expect(await text(tab.tabId, '#trust')).toBe('trusted click')
  })

  it('browser_wait_for waits for text to appear and to disappear, and for selectors', async () => {
    const first = await open('/form')
    await h.ok('browser_click', { tabId: first.tabId, selector: '#save' })
    expect(await h.ok('browser_wait_for', { tabId: first.tabId, text: 'Saved!' })).toMatchObject({
      met: true,
    })
    expect(await text(first.tabId, '#status')).toBe('Saved!')
    const second = await open('/form')
    await h.ok('browser_click', { tabId: second.tabId, selector: '#save' })
    expect(await h.ok('browser_wait_for', { tabId: second.tabId, textGone: 'Idle' })).toMatchObject({
      met: true,
    })
    expect(await text(second.tabId, '#status')).toBe('Saved!')
    const visible = await h.ok('browser_wait_for', { tabId: second.tabId, selector: '#hover-target' })
    expect(visible).toMatchObject({ met: true })
    const gone = await h.ok('browser_wait_for', {
      tabId: second.tabId,
      selector: '#nothing',
      state: 'detached',
    })
    expect(gone).toMatchObject({ met: true })
    const hidden = await h.fails('browser_wait_for', {
      tabId: second.tabId,
      selector: '#save',
      state: 'hidden',
      timeoutMs: 300,
    })
    expect(hidden.message).toContain('#save to be hidden')
  })

  it('browser_wait_for keeps waiting through a page that is still loading', async () => {
    const tab = await h.ok<Tab>('browser_open_tab', { url: h.site.url('/form'), waitForLoad: false })
    expect(
      (await h.ok<{ met: boolean }>('browser_wait_for', { tabId: tab.tabId, text: 'Sign up' })).met,
    ).toBe(true)
  })

  it('browser_snapshot keeps multi-line values on one line', async () => {
    const tab = await open('/form')
    await h.ok('browser_type', { tabId: tab.tabId, selector: '#bio', text: 'line one' })
    await h.ok('browser_press_key', { tabId: tab.tabId, key: 'Enter' })
    await h.ok('browser_type', { tabId: tab.tabId, selector: '#bio', text: 'line two', clear: false })
    expect(await h.ok<string>('browser_snapshot', { tabId: tab.tabId, selector: '#bio' })).toMatch(
      /- textbox "Bio" \[focused\] \[ref=e\d+\]: line one\\nline two$/,
    )
  })

  it('browser_wait_for fails with a timeout naming the condition, and reports progress while waiting', async () => {
    const tab = await open('/form')
    const err = await h.fails('browser_wait_for', { tabId: tab.tabId, text: 'never there', timeoutMs: 500 })
    expect(err).toMatchObject({ code: 'tool_error', category: 'timeout', retryable: true })
    expect(err.message).toContain('waited 500 ms for text "never there" to appear')
    const plain = await h.call('browser_wait_for', { timeoutMs: 2_500 })
    expect(plain.ok).toBe(true)
    if (plain.ok) expect(plain.progress.map((p) => p.message)).toContain('waiting')
    expect(
      (await h.fails('browser_wait_for', { tabId: tab.tabId, selector: 'a[', timeoutMs: 500 })).message,
    ).toContain('invalid CSS selector')
  })

  it('browser_click that submits a form follows the navigation and returns the new page', async () => {
    const tab = await open('/form')
    await h.ok('browser_type', { tabId: tab.tabId, selector: '#email', text: 'ada@example.com' })
    const result = await h.ok<string>('browser_click', { tabId: tab.tabId, selector: 'button[type=submit]' })
    expect(result).toMatch(/^URL: \S+\/submitted\?email=ada%40example\.com/)
    expect(result).toContain('Title: ')
    expect(await text(tab.tabId, 'ul')).toContain('email=ada@example.com')
  })

  it('browser_type replaces or appends text and returns no echo of it; submit presses Enter and returns the new page', async () => {
    const tab = await open('/form')
    const snap = await h.ok<string>('browser_snapshot', { tabId: tab.tabId })
    const bio = refOf(snap, 'textbox "Bio"')
    const value = async () =>
      await h.ok<{ html: string }>('browser_get_html', { tabId: tab.tabId, selector: '#bio' })
    expect(await h.ok('browser_type', { tabId: tab.tabId, ref: bio, text: 'new text' })).toBe(
      'No change on the page.',
    )
    await h.ok('browser_type', { tabId: tab.tabId, ref: bio, text: ' and more', clear: false })
    expect(await text(tab.tabId, '#bio')).toBe('')
    const page = await h.pageAt(h.site.url('/form'))
    expect(await page.evaluate(() => (document.getElementById('bio') as HTMLTextAreaElement).value)).toBe(
      'new text and more',
    )
    await h.ok('browser_type', { tabId: tab.tabId, ref: bio, text: '' })
    expect(await page.evaluate(() => (document.getElementById('bio') as HTMLTextAreaElement).value)).toBe('')
    expect((await value()).html).toContain('old text')
    const secret = await h.ok<string>('browser_type', {
      tabId: tab.tabId,
      selector: 'input[name=password]',
      text: 's3cret',
    })
    expect(secret).not.toContain('s3cret')
    const submitted = await h.ok<string>('browser_type', {
      tabId: tab.tabId,
      selector: '#email',
      text: 'x@y.z',
      submit: true,
    })
    expect(submitted).toMatch(/^URL: \S+email=x%40y\.z/)
  })

  it('browser_type edits contenteditable elements', async () => {
    const tab = await open('/form')
    expect(await h.ok('browser_type', { tabId: tab.tabId, selector: '#editor', text: 'rich text' })).toBe(
      'No change on the page.',
    )
    expect(await text(tab.tabId, '#editor')).toBe('rich text')
    await h.ok('browser_type', { tabId: tab.tabId, selector: '#editor', text: '!', clear: false })
    expect(await text(tab.tabId, '#editor')).toBe('rich text!')
  })

  it('browser_click reports tabs that the click opened', async () => {
    const tab = await open('/form')
    const result = await h.ok<string>('browser_click', { tabId: tab.tabId, selector: '#popup' })
    expect(result).toMatch(new RegExp(`^Opened tab \\d+: ${h.site.url('/').replace(/[.?]/g, '\\$&')}$`, 'm'))
  })

  it('browser_type refuses elements that are not editable', async () => {
    const tab = await open('/form')
    const err = await h.fails('browser_type', { tabId: tab.tabId, selector: '#save', text: 'x' })
    expect(err).toMatchObject({ category: 'validation' })
    expect(err.message).toContain('button "Save draft" is not an editable field')
    const select = await h.fails('browser_type', { tabId: tab.tabId, selector: '#color', text: 'Blue' })
    expect(select.message).toBe('combobox "Color" is a <select>: choose an option with browser_select_option')
    const option = await h.fails('browser_click', {
      tabId: tab.tabId,
      selector: '#color option:nth-child(2)',
    })
    expect(option.message).toBe(
      'option "Green" is inside a closed <select>: choose it with browser_select_option',
    )
  })

  it('browser_press_key sends trusted keys and combinations to the focused or given element', async () => {
    const tab = await open('/form')
    const pressed = await h.ok<string>('browser_press_key', { tabId: tab.tabId, selector: '#keys', key: 'a' })
    expect(pressed).toMatch(/^Focused: textbox "Key field"$/m)
    expect(pressed).toMatch(/^- textbox "Key field" \[ref=e\d+\]: a$/m)
    await h.ok('browser_press_key', { tabId: tab.tabId, key: 'Shift+B' })
    await h.ok('browser_press_key', { tabId: tab.tabId, key: 'ArrowLeft' })
    expect(await text(tab.tabId, '#keylog')).toBe('a(trusted) Shift(trusted) B(trusted) ArrowLeft(trusted)')
    await h.ok('browser_press_key', { tabId: tab.tabId, key: 'z' })
    expect(await h.ok<string>('browser_snapshot', { tabId: tab.tabId, selector: '#keys' })).toMatch(
      /- textbox "Key field" \[focused\] \[ref=e\d+\]: azB$/,
    )
    await h.ok('browser_press_key', { tabId: tab.tabId, key: 'Control+a' })
    await h.ok('browser_press_key', { tabId: tab.tabId, key: 'Backspace' })
    await h.ok('browser_type', { tabId: tab.tabId, selector: '#keys', text: 'fresh', clear: false })
    expect(await h.ok<string>('browser_snapshot', { tabId: tab.tabId, selector: '#keys' })).toMatch(
      /- textbox "Key field" \[focused\] \[ref=e\d+\]: fresh$/,
    )
    const moved = await h.ok<string>('browser_press_key', { tabId: tab.tabId, key: 'Shift+Tab' })
    expect(moved).toMatch(/^Focused: button "Save draft"$/m)
    expect(await h.ok<string>('browser_snapshot', { tabId: tab.tabId })).toMatch(
      /^- button "Save draft" \[focused\] \[ref=e\d+\]$/m,
    )
    expect((await h.fails('browser_press_key', { tabId: tab.tabId, key: 'Hyper' })).message).toContain(
      'unknown key "Hyper"',
    )
  })

  it('browser_select_option selects by value or label, fires change, and lists options when none match', async () => {
    const tab = await open('/form')
    // The page's reaction is what changed; the select's own value is what was asked, so not echoed.
    const blue = await h.ok<string>('browser_select_option', {
      tabId: tab.tabId,
      selector: '#color',
      values: ['Blue'],
    })
    expect(blue).toMatch(/^- text: color changed to b$/m)
    expect(blue).not.toContain('combobox')
    expect(await text(tab.tabId, '#changes')).toBe('color changed to b')
    await h.ok('browser_select_option', { tabId: tab.tabId, selector: '#color', values: ['g'] })
    expect(await h.ok<string>('browser_snapshot', { tabId: tab.tabId, selector: '#color' })).toMatch(
      /- combobox "Color" \[ref=e\d+\]: Green /,
    )
    const err = await h.fails('browser_select_option', {
      tabId: tab.tabId,
      selector: '#color',
      values: ['Purple'],
    })
    expect(err.category).toBe('not_found')
    expect(err.message).toContain('no option "Purple" in combobox "Color"; options: "Red", "Green", "Blue"')
    expect(
      (await h.fails('browser_select_option', { tabId: tab.tabId, selector: '#email', values: ['x'] }))
        .message,
    ).toContain('is not a <select> element')
  })

  it('browser_hover moves a trusted pointer over the element', async () => {
    const tab = await open('/form')
    expect(await h.ok('browser_hover', { tabId: tab.tabId, selector: '#hover-target' })).toEqual({
      hovered: 'div#hover-target',
    })
    expect(await text(tab.tabId, '#status')).toBe('hovered')
  })

  it('browser_scroll scrolls to an element, by an amount, and inside a scrollable element', async () => {
    const tab = await open('/long')
    const top = await h.ok<{ scrollY: number; atTop: boolean }>('browser_scroll', {
      tabId: tab.tabId,
      direction: 'down',
      amount: 300,
    })
    expect(top).toMatchObject({ scrollY: 300, atTop: false, atBottom: false })
    const bottom = await h.ok<{ scrollY: number; atBottom: boolean }>('browser_scroll', {
      tabId: tab.tabId,
      selector: '#box',
    })
    expect(bottom.scrollY).toBeGreaterThan(4000)
    const up = await h.ok<{ scrollY: number; atTop: boolean }>('browser_scroll', {
      tabId: tab.tabId,
      direction: 'up',
      amount: 100_000,
    })
    expect(up).toMatchObject({ scrollY: 0, atTop: true })
    await h.ok('browser_scroll', { tabId: tab.tabId, selector: '#box', direction: 'down', amount: 250 })
    const page = await h.pageAt(h.site.url('/long'))
    const inner = await page.evaluate(() => document.getElementById('box')?.scrollTop)
    expect(inner).toBe(250)
  })

  it('browser_get_text and browser_get_html read elements, the page, and cut long content with a marker', async () => {
    const tab = await open('/')
    expect(await text(tab.tabId, 'h1')).toBe('Welcome to the fixture')
    const page = await h.ok<{ text: string; truncated: boolean }>('browser_get_text', { tabId: tab.tabId })
    expect(page.text).toContain('Second item')
    expect(page.truncated).toBe(false)
    const cut = await h.ok<{ text: string; length: number; truncated: boolean }>('browser_get_text', {
      tabId: tab.tabId,
      maxLength: 100,
    })
    expect(cut.truncated).toBe(true)
    expect(cut.text).toMatch(
      new RegExp(
        `\\n\\[truncated at maxLength: showing 100 of ${cut.length} characters; the rest: offset: 100; or pass ref or selector for one part of the page\\]$`,
      ),
    )
    // The offset gives the rest, where the first part stopped.
    const rest = await h.ok<{ text: string; truncated: boolean }>('browser_get_text', {
      tabId: tab.tabId,
      maxLength: 100_000,
      offset: 100,
    })
    expect(rest.truncated).toBe(false)
    expect(cut.text.slice(0, 100) + rest.text).toBe(page.text)
    const html = await h.ok<{ html: string }>('browser_get_html', { tabId: tab.tabId, selector: 'ul' })
    expect(html.html).toBe('<ul><li>First item</li><li>Second item</li></ul>')
    expect(
      (await h.ok<{ html: string }>('browser_get_html', { tabId: tab.tabId, selector: 'ul', outer: false }))
        .html,
    ).toBe('<li>First item</li><li>Second item</li>')
    const doc = await h.ok<{ html: string; truncated: boolean }>('browser_get_html', {
      tabId: tab.tabId,
      maxLength: 150,
    })
    expect(doc.html.startsWith('<html>')).toBe(true)
    expect(doc.html).toMatch(
      /<!-- truncated: showing 150 of \d+ characters; pass ref or selector for one part of the page, or raise maxLength -->$/,
    )
  })

  it('element tools fail with not_found for a stale ref or a missing selector, and refs expire on navigation', async () => {
    const tab = await open('/form')
    const snap = await h.ok<string>('browser_snapshot', { tabId: tab.tabId })
    const save = refOf(snap, 'Save draft')
    await h.ok('browser_navigate', { tabId: tab.tabId, url: h.site.url('/') })
    const stale = await h.fails('browser_click', { tabId: tab.tabId, ref: save })
    expect(stale).toMatchObject({ code: 'tool_error', category: 'not_found' })
    expect(stale.message).toContain(`no element for ref ${save}`)
    expect(stale.message).toContain('take a new browser_snapshot')
    const missing = await h.fails('browser_get_text', { tabId: tab.tabId, selector: '#absent' })
    expect(missing.message).toBe('no element matches the selector #absent')
    const both = await h.fails('browser_click', { tabId: tab.tabId })
    expect(both).toMatchObject({ category: 'validation' })
  })

  it('browser_click refuses an element covered by an overlay, naming what covers it', async () => {
    const tab = await open('/covered')
    const err = await h.fails('browser_click', { tabId: tab.tabId, selector: '#under' })
    expect(err.category).toBe('validation')
    expect(err.message).toContain('button "Under" is covered by div.overlay')
    expect((await h.ok<Tab>('browser_focus_tab', { tabId: tab.tabId })).title).toBe('Covered page')
  })
})

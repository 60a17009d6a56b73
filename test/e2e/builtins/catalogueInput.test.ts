import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCatalogueHarness, type CatalogueHarness } from './catalogueHarness'

/** The ref on the first snapshot line containing `needle`. */
function refOf(snapshot: string, needle: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(needle))
  const ref = line && /\[ref=((?:f\d+)?e\d+)\]/.exec(line)?.[1]
  if (!ref) throw new Error(`no ref for ${needle} in:\n${snapshot}`)
  return ref
}

const b64 = (text: string) => Buffer.from(text).toString('base64')

// Forms, frames, coordinates and reading, as an agent sees them through the daemon and the extension.
describe('built-in input, frame and reading tools through MCP in real Chromium', () => {
  let h: CatalogueHarness
  beforeAll(async () => {
    h = await startCatalogueHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  const out = async (tabId: number, selector = '#out') =>
    (await h.json<{ text: string }>('browser_get_text', { tabId, selector })).text

  it('browser_fill_form sets text, select, checkbox, radio and slider in one call; browser_set_checked clicks only when needed', async () => {
    const tabId = await h.open(h.site.url('/forms'))
    const filled = await h.text('browser_fill_form', {
      tabId,
      fields: [
        { selector: '#name', value: 'Ada' },
        { selector: '#notes', value: 'two\nlines' },
        { selector: '#size', value: 'Large' },
        { selector: '#news', value: true },
        { selector: '#missing', value: 'x' },
        { selector: '#pro', value: true },
        { selector: '#vol', value: 7 },
        { selector: '#code', value: 'abc' },
      ],
    })
    // No echo of what was set: only what failed (the others are still filled) or did not stick, then
    // what else changed on the page (the log line), not the fields themselves.
    const lines = filled.split('\n')
    expect(lines.slice(0, 3)).toEqual([
      'Filled 6 of 8 fields.',
      '#missing failed: no element matches the selector #missing',
      'textbox "Code" (#code) holds "ABC", not "abc"',
    ])
    expect(filled).not.toMatch(/textbox "Name"/)
    const log = await out(tabId)
    for (const event of ['name=Ada', 'size=l', 'news-click-trusted', 'news=true', 'pro=true', 'vol=7'])
      expect(log).toContain(event)
    expect(await h.json('browser_set_checked', { tabId, selector: '#news', checked: true })).toEqual({
      field: 'checkbox "Newsletter"',
      checked: true,
    })
    expect(await h.json('browser_set_checked', { tabId, selector: '#news', checked: false })).toEqual({
      field: 'checkbox "Newsletter"',
      checked: false,
    })
    expect(await h.error('browser_set_checked', { tabId, selector: '#name', checked: true })).toBe(
      '[tool_error] textbox "Name" is not a checkbox, radio or switch',
    )
  })

  it('browser_upload_file fills a file input, and answers the file chooser a button opens', async () => {
    const tabId = await h.open(h.site.url('/forms'))
    expect(
      await h.json('browser_upload_file', {
        tabId,
        selector: '#direct',
        files: [{ name: 'a.txt', mimeType: 'text/plain', base64: b64('alpha') }],
      }),
    ).toEqual({ field: 'button "Direct file"', files: [{ name: 'a.txt', size: 5 }] })
    const viaChooser = await h.json<{ files: { name: string; size: number }[] }>('browser_upload_file', {
      tabId,
      selector: '#pick',
      files: [{ name: 'b.txt', base64: b64('bravo!') }],
    })
    expect(viaChooser.files).toEqual([{ name: 'b.txt', size: 6 }])
    await expect.poll(() => out(tabId)).toContain('hidden-file:b.txt:bravo!')
    expect(await out(tabId)).toContain('direct:a.txt:alpha')
    // Within the schema's size, beyond the 5 MB a call may carry once decoded.
    const big = Buffer.alloc(5_300_000).toString('base64')
    expect(
      await h.error('browser_upload_file', {
        tabId,
        selector: '#direct',
        files: [{ name: 'big', base64: big }],
      }),
    ).toBe('[tool_error] the files add up to 5300000 bytes; at most 5242880 can be sent in one call')
  })

  it('browser_upload_file and browser_drop read paths only from the folders the user allowed', async () => {
    const tabId = await h.open(h.site.url('/forms'))
    const root = mkdtempSync(join(tmpdir(), 'bridge-e2e-uploads-'))
    try {
      const folder = join(root, 'allowed')
      mkdirSync(folder)
      writeFileSync(join(folder, 'cv.txt'), 'my cv')
      writeFileSync(join(folder, 'photo.txt'), 'a photo')
      writeFileSync(join(root, 'private.txt'), 'private notes')
      symlinkSync(join(root, 'private.txt'), join(folder, 'escape.txt'))
      const setting = 'uploadFolders in config.json (bridge config set uploadFolders.add <folder>)'
      // Default: no folder, so no path at all.
      expect(await h.error('browser_upload_file', { tabId, selector: '#direct', paths: ['cv.txt'] })).toBe(
        `[invalid_input] no upload folder is allowed; set ${setting}`,
      )
      await h.configSet('uploadFolders.add', folder)
      expect(
        await h.json('browser_upload_file', {
          tabId,
          selector: '#direct',
          paths: ['cv.txt', join(folder, 'photo.txt')],
        }),
      ).toEqual({
        field: 'button "Direct file"',
        files: [
          { name: 'cv.txt', size: 5 },
          { name: 'photo.txt', size: 7 },
        ],
      })
      await expect.poll(() => out(tabId)).toContain('direct:photo.txt:a photo')
      expect(await out(tabId)).toContain('direct:cv.txt:my cv')
      for (const path of [join(root, 'private.txt'), '../private.txt', 'escape.txt']) {
        const refused = await h.error('browser_upload_file', { tabId, selector: '#direct', paths: [path] })
        expect(refused).toBe(
          `[invalid_input] ${JSON.stringify(path)} is outside the allowed upload folders (${setting})`,
        )
      }
      expect(await h.json('browser_drop', { tabId, selector: '#zone', paths: ['cv.txt'] })).toMatchObject({
        files: ['cv.txt'],
      })
      await expect.poll(() => out(tabId)).toContain('dropped-file:cv.txt:my cv')
      expect(await out(tabId)).not.toContain('private notes')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('browser_drag moves an HTML draggable onto a target; browser_drop drops files and text', async () => {
    const tabId = await h.open(h.site.url('/forms'))
    expect(await h.json('browser_drag', { tabId, fromSelector: '#src', toSelector: '#bin' })).toEqual({
      dragged: 'div#src',
      onto: 'div#bin',
    })
    await expect.poll(() => out(tabId)).toContain('binned:card-1')
    const dropped = await h.json('browser_drop', {
      tabId,
      selector: '#zone',
      files: [{ name: 'c.txt', base64: b64('charlie') }],
      data: { 'text/plain': 'hello drop' },
    })
    expect(dropped).toEqual({
      droppedOn: 'div#zone',
      files: ['c.txt'],
      types: ['text/plain'],
      handled: true,
    })
    await expect.poll(() => out(tabId)).toContain('dropped-file:c.txt:charlie')
    expect(await out(tabId)).toContain('dropped-text:hello drop')
  })

  it('browser_insert_text, browser_key_down and browser_key_up reach the focused field as the user would', async () => {
    const tabId = await h.open(h.site.url('/forms'))
    expect(await h.json('browser_insert_text', { tabId, selector: '#editor', text: 'rich text' })).toEqual({
      inserted: 9,
      focused: 'textbox "Editor"',
    })
    expect(await out(tabId, '#editor')).toBe('rich text')
    expect(await out(tabId)).toContain('editor-input:insertText')
    await h.text('browser_press_key', { tabId, selector: '#keys', key: 'Tab' })
    await h.text('browser_click', { tabId, selector: '#keys' })
    expect(await h.json('browser_key_down', { tabId, key: 'Shift' })).toEqual({
      down: 'Shift',
      focused: 'textbox "Keys"',
    })
    await h.json('browser_key_down', { tabId, key: 'a' })
    await h.json('browser_key_up', { tabId, key: 'a' })
    expect(await h.json('browser_key_up', { tabId, key: 'Shift' })).toMatchObject({ up: 'Shift' })
    const log = await out(tabId)
    expect(log).toContain('down:Shift+shift')
    expect(log).toMatch(/down:[aA]\+shift/)
    expect(log).toContain('up:Shift')
  })

  it('browser_snapshot enters same- and cross-origin iframes with frame refs that click, type and screenshot accept', async () => {
    const tabId = await h.open(h.site.url('/frames'))
    await h.json('browser_wait_for', { tabId, timeoutMs: 500 })
    const snap = await h.text('browser_snapshot', { tabId })
    expect(snap).toMatch(
      /- iframe "Same origin" \[ref=e\d+\]:\n - document "http:\/\/127\.0\.0\.1:\d+\/inner"/,
    )
    expect(snap).toMatch(/- iframe "Cross origin" \[ref=e\d+\]:\n - document "http:\/\/localhost:\d+\/inner"/)
    const buttons = snap.split('\n').filter((l) => l.includes('button "Press in frame"'))
    expect(buttons).toHaveLength(2)
    const [same, cross] = buttons.map((l) => /\[ref=(f\d+e\d+)\]/.exec(l)![1]!)
    // What changed is reported inside its frame, under the iframe line.
    expect(await h.text('browser_click', { tabId, ref: cross })).toMatch(
      /- iframe "Cross origin" \[ref=e\d+\]:\n(.*\n)*.*pressed in localhost:\d+ \(trusted\)/,
    )
    const crossField = refOf(snap.slice(snap.indexOf('Cross origin')), 'textbox "Frame field"')
    await h.text('browser_type', { tabId, ref: crossField, text: 'typed across origins' })
    const after = await h.text('browser_snapshot', { tabId })
    const crossPart = after.slice(after.indexOf('Cross origin'))
    expect(crossPart).toMatch(/pressed in localhost:\d+ \(trusted\)/)
    expect(crossPart).toContain('textbox "Frame field" [focused]')
    expect(crossPart).toContain('typed across origins')
    await h.text('browser_click', { tabId, ref: same })
    expect(after.slice(0, after.indexOf('Cross origin'))).toContain('waiting')
    expect(await h.text('browser_snapshot', { tabId })).toMatch(/pressed in 127\.0\.0\.1:\d+ \(trusted\)/)
    const shot = await h.call('browser_screenshot', { tabId, ref: same })
    expect(shot.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png' })
    const found = await h.json<{ matches: { line: string }[] }>('browser_find', {
      tabId,
      text: 'frame field',
    })
    expect(found.matches.map((m) => m.line)).toEqual([
      expect.stringMatching(/^- textbox "Frame field" \[ref=f\d+e\d+\]$/),
      expect.stringMatching(/^- textbox "Frame field" \[ref=f\d+e\d+\]: typed across origins$/),
    ])
  })

  it('coordinate tools click, double-click, press, release, wheel and drag on a canvas', async () => {
    const tabId = await h.open(h.site.url('/canvas'))
    const clicked = await h.json('browser_mouse_click_xy', { tabId, x: 50, y: 40 })
    expect(clicked).toEqual({ x: 50, y: 40, target: 'canvas#c' })
    await h.json('browser_mouse_click_xy', { tabId, x: 60, y: 40, clickCount: 2 })
    expect(await h.json('browser_mouse_move_xy', { tabId, x: 100, y: 100 })).toMatchObject({
      target: 'canvas#c',
    })
    await h.json('browser_mouse_down', { tabId, x: 100, y: 100 })
    await h.json('browser_mouse_up', { tabId, x: 100, y: 100 })
    await h.json('browser_mouse_wheel', { tabId, x: 100, y: 100, deltaY: 120 })
    expect(
      await h.json('browser_mouse_drag_xy', { tabId, fromX: 10, fromY: 10, toX: 90, toY: 50, steps: 4 }),
    ).toEqual({
      from: { x: 10, y: 10 },
      to: { x: 90, y: 50 },
      target: 'canvas#c',
    })
    const log = await out(tabId)
    expect(log).toContain('click@50,40')
    expect(log).toContain('dblclick@60,40')
    expect(log).toContain('mousedown@100,100')
    expect(log).toContain('mouseup@100,100')
    expect(log).toContain('wheel:120')
    expect(log).toContain('drag@90,50')
    expect(log).not.toContain('!')
  })

  it('browser_find returns only matching lines with refs and context; browser_query lists elements, capped', async () => {
    const tabId = await h.open(h.site.url('/read'))
    const found = await h.json<{ total: number; matches: { line: string; context: string }[] }>(
      'browser_find',
      {
        tabId,
        regex: 'dark|offline',
        context: 0,
      },
    )
    expect(found.total).toBe(2)
    expect(found.matches.map((m) => m.line)).toEqual([
      expect.stringMatching(/^- listitem: Offline mode$/),
      expect.stringMatching(/^- listitem: Dark theme$/),
    ])
    const one = await h.json<{ matches: { context: string }[] }>('browser_find', {
      tabId,
      text: 'Save',
      context: 1,
    })
    expect(one.matches[0]!.context.split('\n')).toHaveLength(3)
    expect(await h.error('browser_find', { tabId, regex: '(' })).toMatch(
      /^\[tool_error\] invalid regular expression/,
    )
    const queried = await h.json<{ total: number; elements: Record<string, unknown>[]; truncated?: string }>(
      'browser_query',
      { tabId, selector: 'button.act', attributes: ['data-kind'], limit: 1 },
    )
    expect(queried.total).toBe(2)
    expect(queried.elements).toEqual([
      {
        ref: expect.stringMatching(/^e\d+$/),
        tag: 'button',
        role: 'button',
        name: 'Save',
        text: 'Save',
        visible: true,
        attributes: { 'data-kind': 'save' },
      },
    ])
    expect(queried.truncated).toBe('showing 1 of 2: narrow the selector or raise limit')
    await h.text('browser_click', { tabId, ref: queried.elements[0]!.ref })
  })

  it('browser_get_markdown reads the main content as markdown; browser_snapshot depth leaves out deep nesting', async () => {
    const tabId = await h.open(h.site.url('/read'))
    const md = await h.json<{ markdown: string; truncated: boolean }>('browser_get_markdown', { tabId })
    expect(md.markdown.startsWith('# Release notes\n\n')).toBe(true)
    expect(md.markdown).toContain(`Version **2.0** brings [faster sync](${h.site.url('/speed')}).`)
    expect(md.markdown).toContain('## Changes\n\n- Offline mode\n- Dark theme')
    expect(md.markdown).toContain('| Plan | Price |\n| --- | --- |\n| Pro | 9 |')
    expect(md.markdown).toContain('```\nnpm install thing\n```')
    expect(md.markdown).not.toContain('Home')
    const cut = await h.json<{ markdown: string; truncated: boolean }>('browser_get_markdown', {
      tabId,
      maxLength: 100,
    })
    expect(cut.truncated).toBe(true)
    expect(cut.markdown).toMatch(
      /\[truncated at maxLength: showing 100 of \d+ characters; the rest: offset: 100; or pass selector for one part of the page\]$/,
    )
    const rest = await h.json<{ markdown: string }>('browser_get_markdown', { tabId, offset: 100 })
    expect(cut.markdown.slice(0, 100) + rest.markdown).toBe(md.markdown)
    const shallow = await h.text('browser_snapshot', { tabId, depth: 1 })
    expect(shallow).toContain('- main')
    expect(shallow).not.toContain('Offline mode')
    expect(shallow).toMatch(/\[\d+ elements deeper than depth 1 left out: raise depth or pass selector\]$/)
  })
})

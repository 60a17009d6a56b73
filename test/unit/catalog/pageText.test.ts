import { describe, expect, it } from 'vitest'
import { BROWSER_TOOL_NAMES, PAGE_TEXT_FREE_TOOLS } from '../../../src/tools'
import { builtinCarriesPageText } from '../../../src/catalog/pageText'

describe('pageText', () => {
  it('declares only built-in tools that exist as free of page text', () => {
    for (const name of PAGE_TEXT_FREE_TOOLS) expect(BROWSER_TOOL_NAMES, name).toContain(name)
  })

  it('counts the reads of page content as page text: text, markdown, snapshot, console, network bodies', () => {
    for (const name of [
      'browser_get_text',
      'browser_get_markdown',
      'browser_get_html',
      'browser_snapshot',
      'browser_find',
      'browser_query',
      'browser_console_logs',
      'browser_network_requests',
      'browser_network_request',
      'browser_network_export_har',
      'browser_websocket_frames',
      'browser_local_storage_get',
      'browser_evaluate',
      'browser_list_tabs',
    ])
      expect(builtinCarriesPageText(name, {}), name).toBe(true)
  })

  it("marks a workflow run's result when it carries what its read steps read or a stop's report, not otherwise", () => {
    expect(builtinCarriesPageText('workflow_order', { ok: true, steps: 4, tabId: 7 })).toBe(false)
    expect(
      builtinCarriesPageText('workflow_order', {
        ok: true,
        steps: 4,
        healed: [{ step: 2, by: 'css', saved: true }],
      }),
    ).toBe(false)
    expect(
      builtinCarriesPageText('workflow_order', { ok: true, steps: 4, read: [{ step: 4, text: 'x' }] }),
    ).toBe(true)
    expect(builtinCarriesPageText('workflow_order', { ok: false, steps: 2, stopped: { page: 'x' } })).toBe(
      true,
    )
    expect(builtinCarriesPageText('workflow_order', 'text')).toBe(true)
  })

  it('marks a free tool’s result that names an open dialog, whose message the page wrote', () => {
    expect(builtinCarriesPageText('browser_set_viewport', { width: 800 })).toBe(false)
    expect(builtinCarriesPageText('browser_set_viewport', { width: 800, openDialogs: [] })).toBe(true)
    expect(builtinCarriesPageText('browser_close_tab', 'closed\n[open dialogs: []]')).toBe(true)
  })
})

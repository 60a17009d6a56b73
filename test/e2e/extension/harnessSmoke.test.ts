import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, type BrowserHarness } from '../../helpers/browser'
import { EXTENSION_ID } from '../../../src/protocol/constants'

describe('browser harness', () => {
  let browser: BrowserHarness
  beforeAll(async () => { browser = await launchBrowser({ port: 1, secret: 'a'.repeat(64) }) })
  afterAll(async () => { await browser?.close() })
  it('loads the extension with its fixed id', async () => {
    const sw = await browser.serviceWorker()
    expect(sw.url()).toBe(`chrome-extension://${EXTENSION_ID}/background.js`)
    const page = await browser.openSidePanel()
    expect(await page.title()).toBe('bridge')
  })
})

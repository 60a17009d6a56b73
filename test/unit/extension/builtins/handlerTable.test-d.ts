import { expectTypeOf, test } from 'vitest'
import type { HandlerTable, Handlers } from '../../../../extension/builtins/context'
import type { BrowserToolGroups, forms } from '../../../../src/tools'

test('every group of src/tools needs its handler file, and every tool its handler', () => {
  expectTypeOf<keyof HandlerTable>().toEqualTypeOf<keyof BrowserToolGroups>()
  expectTypeOf<keyof Handlers<typeof forms>>().toEqualTypeOf<keyof typeof forms>()
  // A table of the forms group without browser_fill_form's handler is not a table of that group.
  expectTypeOf<Omit<Handlers<typeof forms>, 'fillForm'>>().not.toMatchTypeOf<Handlers<typeof forms>>()
})

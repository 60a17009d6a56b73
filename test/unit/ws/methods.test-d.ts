import { expectTypeOf, test } from 'vitest'
import type { ClientRequestName } from '../../../src/protocol'
import type { MethodHandler, MethodHandlers } from '../../../src/ws/methods'

test('a /ws method of src/protocol without a handler does not type-check', () => {
  const ok: MethodHandler<'tab.stateChanged'> = () => Promise.resolve({ ok: true })
  // @ts-expect-error every method the extension may call needs its handler
  const incomplete: MethodHandlers = { 'tab.stateChanged': ok }
  expectTypeOf(incomplete).toEqualTypeOf<MethodHandlers>()
  expectTypeOf<keyof MethodHandlers>().toEqualTypeOf<ClientRequestName>()
})

test('a handler gets its method’s params and must return its result', () => {
  expectTypeOf<Parameters<MethodHandler<'folder.open'>>[0]>().toEqualTypeOf<{ path: string }>()
  // @ts-expect-error config.getState answers a ConfigState, not { ok }
  const wrong: MethodHandler<'config.getState'> = () => Promise.resolve({ ok: true })
  expectTypeOf(wrong).toBeFunction()
})

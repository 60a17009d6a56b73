import { expectTypeOf, test } from 'vitest'
import type { ServerNotificationName, ServerRequestName } from '../../../src/protocol'
import type { DaemonNotificationHandlers, DaemonRequestHandlers } from '../../../extension/background/methods'

test("a /ws method the daemon may send without the extension's handler does not type-check", () => {
  expectTypeOf<keyof DaemonNotificationHandlers>().toEqualTypeOf<ServerNotificationName>()
  expectTypeOf<keyof DaemonRequestHandlers>().toEqualTypeOf<ServerRequestName>()
  const uninstall: DaemonRequestHandlers['plugin.uninstall'] = () => Promise.resolve({ ok: true })
  // @ts-expect-error tool.dispatch has no handler
  const incomplete: DaemonRequestHandlers = { 'plugin.uninstall': uninstall }
  expectTypeOf(incomplete).toEqualTypeOf<DaemonRequestHandlers>()
})

test('a handler gets its method’s params and must return its result', () => {
  expectTypeOf<Parameters<DaemonNotificationHandlers['confirmation.cancel']>[0]>().toEqualTypeOf<{
    id: string
    reason: string
  }>()
  // @ts-expect-error plugin.uninstall answers { ok }, not nothing
  const wrong: DaemonRequestHandlers['plugin.uninstall'] = () => Promise.resolve(undefined)
  expectTypeOf(wrong).toBeFunction()
})

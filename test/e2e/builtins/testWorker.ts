// Test-only service worker entry: the real background (connection, dispatcher, everything) plus a
// handle on runBuiltinTool, so tests can call built-in tools inside the worker as the dispatcher does.
// The shipped extension never contains this hook.
import '../../../extension/background'
import { runBuiltinTool } from '../../../extension/builtins'

;(globalThis as unknown as { __bridgeTest: unknown }).__bridgeTest = { runBuiltinTool }

/**
 * The built-in tools' page library, injected from file into the extension's isolated world of a tab
 * (`builtinsPage.js`). It installs one object, once per document, that the service worker calls by
 * operation name; results come back as data, never as thrown values.
 */
import * as ops from './ops'
import { PageError, type PageResult } from './pageError'
import { markdown } from './markdown'
import { setFramePrefix } from './refs'
import * as signals from './signals'
import { snapshot } from './snapshot'

const operations: Record<string, (args: never) => unknown> = {
  ...ops,
  snapshot,
  markdown,
  targetSignals: signals.targetSignals,
  findTarget: signals.findTarget,
  postMisses: signals.postMisses,
  iframeCss: signals.iframeCss,
  iframeIndex: signals.iframeIndex,
  regionOf: signals.regionOf,
}

declare global {
  var __bridgeBuiltins: { run(op: string, args: unknown, frameId?: number): PageResult } | undefined
}

globalThis.__bridgeBuiltins ??= {
  run(op, args, frameId = 0) {
    setFramePrefix(frameId)
    const fn = operations[op]
    if (!fn) return { ok: false, category: 'internal', message: `unknown page operation ${op}` }
    try {
      return { ok: true, value: fn(args as never) }
    } catch (err) {
      if (err instanceof PageError) return { ok: false, category: err.category, message: err.message }
      return { ok: false, category: 'internal', message: err instanceof Error ? err.message : String(err) }
    }
  },
}

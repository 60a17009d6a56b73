/** Handlers of src/tools/devtools.ts: screenshots, console, network capture. */
import type { devtools as defs } from '../../src/tools'
import { consoleClear, consoleLogs, consoleMessage } from './consoleLogs'
import type { Handlers } from './context'
import { networkExportHar, networkRequests, networkStart, networkStop } from './networkRecording'
import { savePdf, screenshot } from './screenshot'

export const devtoolsHandlers: Handlers<typeof defs> = {
  screenshot,
  consoleLogs,
  networkStart,
  networkStop,
  networkRequests,
  networkExportHar,
  savePdf,
  consoleClear,
  consoleMessage,
}

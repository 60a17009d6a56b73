import { BROWSER_PLUGIN } from '../../src/protocol/constants'
import type { PluginState, ToolState } from '../shared/wireTypes'
import { command } from './background'

/**
 * Every tool starts off, so a first agent lists none: this says so while nothing is on, names the
 * switches that turn tools on, and offers the one that turns on the core browser tools (each call
 * asking here first), the same as `bridge config set plugin-permission.browser ask`.
 */
export function NoToolsHint({
  plugins,
  browserTools,
  connected,
  onError,
}: {
  plugins: PluginState[]
  browserTools: ToolState[]
  connected: boolean
  onError: (m: string) => void
}) {
  const anyOn = [...browserTools, ...plugins.flatMap((p) => p.tools)].some((t) => t.permission !== 'off')
  if (!connected || anyOn || browserTools.length === 0) return null
  const turnOnCore = async (): Promise<void> => {
    const r = await command({ type: 'setPluginPermission', plugin: BROWSER_PLUGIN, permission: 'ask' })
    if (!r.ok) onError(r.message)
  }
  return (
    <section class="banner" role="status" data-testid="no-tools-hint">
      <p>
        No tool is on yet, so agents see none. Every tool starts off: turn on the core browser tools here
        (each call asks you first), or a plugin&apos;s tools with its switch under Plugins, or single tools
        under Built-in browser tools.
      </p>
      <p>
        <button type="button" data-testid="turn-on-core-tools" onClick={() => void turnOnCore()}>
          Turn on core browser tools
        </button>
      </p>
    </section>
  )
}

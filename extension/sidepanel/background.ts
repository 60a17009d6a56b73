/** The panel's line to the service worker: a port for state pushes, messages for commands. */
import { useEffect, useState } from 'preact/hooks'
import { PANEL_PORT_NAME, type PanelCommand, type PanelReply, type PanelState } from '../shared/panelTypes'

export async function command<T = unknown>(cmd: PanelCommand): Promise<PanelReply<T>> {
  try {
    const reply = await chrome.runtime.sendMessage<{ panel: PanelCommand }, PanelReply<T> | undefined>({
      panel: cmd,
    })
    return reply ?? { ok: false, message: 'The extension did not answer.' }
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) }
  }
}

/** Live panel state; reconnects the port when the service worker restarts. */
export function usePanelState(): PanelState | null {
  const [state, setState] = useState<PanelState | null>(null)
  useEffect(() => {
    let port: chrome.runtime.Port | null = null
    let stopped = false
    let retry: ReturnType<typeof setTimeout> | undefined
    const open = (): void => {
      port = chrome.runtime.connect({ name: PANEL_PORT_NAME })
      port.onMessage.addListener((msg: { type?: string; state?: PanelState }) => {
        if (msg.type === 'state' && msg.state) setState(msg.state)
      })
      port.onDisconnect.addListener(() => {
        port = null
        if (!stopped) retry = setTimeout(open, 500)
      })
    }
    open()
    return () => {
      stopped = true
      clearTimeout(retry)
      port?.disconnect()
    }
  }, [])
  return state
}

/** Pushes the panel state to every open side panel over its `panel` port. */
import { PANEL_PORT_NAME, type PanelState } from '../shared/panelTypes'

export class PanelHub {
  private readonly ports = new Set<chrome.runtime.Port>()
  private scheduled = false

  constructor(private readonly state: () => PanelState) {}

  /** Registers a panel that just connected and sends it the current state. */
  accept(port: chrome.runtime.Port): void {
    if (
      port.name !== PANEL_PORT_NAME ||
      port.sender?.id !== chrome.runtime.id ||
      port.sender.tab?.url?.startsWith('http')
    ) {
      port.disconnect()
      return
    }
    this.ports.add(port)
    port.onDisconnect.addListener(() => this.ports.delete(port))
    port.postMessage({ type: 'state', state: this.state() })
  }

  /** Coalesces bursts of changes into one message per task. */
  publish(): void {
    if (this.scheduled || this.ports.size === 0) return
    this.scheduled = true
    queueMicrotask(() => {
      this.scheduled = false
      const message = { type: 'state', state: this.state() }
      for (const port of this.ports) {
        try {
          port.postMessage(message)
        } catch {
          this.ports.delete(port)
        }
      }
    })
  }
}

/**
 * Approval requests waiting for the user: queued in arrival order, dropped on decision, cancel or
 * expiry. While any wait, the action badge shows their count and one system notification says so.
 */
import type { ApprovalView } from '../shared/panelTypes'
import { visibleText } from '../lib/visibleText'

const NOTIFICATION_ID = 'bridge-approvals'

export class ApprovalQueue {
  private readonly items = new Map<string, ApprovalView>()
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>()

  constructor(private readonly onChange: () => void) {}

  list(): ApprovalView[] {
    return [...this.items.values()]
  }

  add(item: ApprovalView): void {
    if (this.items.has(item.id)) return
    this.items.set(item.id, item)
    const wait = Math.max(0, item.expiresAt - Date.now())
    this.timers.set(
      item.id,
      setTimeout(() => this.remove(item.id), wait),
    )
    this.changed(item)
  }

  /** Removes one request; returns whether it was waiting. */
  remove(id: string): boolean {
    const had = this.items.delete(id)
    const timer = this.timers.get(id)
    if (timer) clearTimeout(timer)
    this.timers.delete(id)
    if (had) this.changed()
    return had
  }

  /** The connection is gone: the daemon failed these calls, and no decision could reach it anyway. */
  clear(): void {
    for (const id of [...this.items.keys()]) this.remove(id)
  }

  has(id: string): boolean {
    return this.items.has(id)
  }

  private changed(added?: ApprovalView): void {
    const count = this.items.size
    void chrome.action.setBadgeText({ text: count ? String(count) : '' })
    if (count) void chrome.action.setBadgeBackgroundColor({ color: '#d97706' })
    if (count === 0) void chrome.notifications.clear(NOTIFICATION_ID)
    else if (added) {
      const message = visibleText(
        count === 1
          ? `${added.client} asks ${added.pluginDisplayName} to run ${added.tool}. Open the bridge side panel to allow or deny.`
          : `${count} tool calls wait for your approval in the bridge side panel.`,
      )
      chrome.notifications.create(
        NOTIFICATION_ID,
        {
          type: 'basic',
          iconUrl: chrome.runtime.getURL('icons/icon128.png'),
          title: 'bridge: approval needed',
          message,
          priority: 2,
          requireInteraction: true,
        },
        () => void chrome.runtime.lastError,
      )
    }
    this.onChange()
  }
}

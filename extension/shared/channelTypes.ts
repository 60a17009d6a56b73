/**
 * Service worker <-> content script messages about the adapters' channels
 * (`chrome.tabs.sendMessage(tabId, { channel: ContentRequest }, { frameId: 0 })`).
 */
import type { AdapterResult } from '../../src/protocol/adapter'

export type ContentRequest =
  /** Which adapters opened a channel in this document, and when the document started. */
  | { op: 'status' }
  | { op: 'ready'; plugin: string }
  | {
      op: 'invoke'
      plugin: string
      tool: string
      input: unknown
      dispatchId: string
      /** The origin the call was approved for: a document of another origin does not run it. */
      origin?: string
    }

export interface ChannelStatus {
  /** `performance.timeOrigin` of the document: when its navigation started (ms since epoch). */
  timeOrigin: number
  channels: { plugin: string; version: string }[]
  /** Hellos refused because the plugin already had a channel (a page trying the handshake). */
  refused: number
}

export type ContentReply =
  | ChannelStatus
  | { missing: true }
  | { ready: boolean }
  | { result: AdapterResult | undefined }
  | { error: string }
  /** The document is not of the origin the call was approved for; nothing ran. */
  | { wrongOrigin: string }

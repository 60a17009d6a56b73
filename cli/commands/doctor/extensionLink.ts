/**
 * The extension as the daemon sees it, in one sentence with the one thing to do: connected and of the
 * daemon's version; of another version (after `bridge update` Chrome runs the old code until the
 * extension is reloaded); asking with another secret (loaded from another config folder, or a copy older
 * than this folder's secret: the daemon cannot tell these two apart, and the fix is the same); reached
 * the daemon but not connected (its side panel says why); or never asked at all (a browser profile
 * without the extension). Said the same way by `bridge doctor` and `bridge status`.
 */
import type { HealthPayload } from '../../../src/http/health'
import { extensionVersionMismatch } from '../../shared/extensionVersion'
import { failOf, pass, warnOf, type CheckResult } from './check'

/** An extension retries at least this often (its backoff's cap), so a loaded one asks within it. */
const EXTENSION_RETRY_CAP_S = 30

type LinkHealth = Pick<
  HealthPayload,
  'version' | 'extensionConnected' | 'extensionVersion' | 'extensionSightings' | 'uptime'
>

export function extensionCheck(health: LinkHealth, extensionDir: string, now = Date.now()): CheckResult {
  if (health.extensionConnected) {
    const running = health.extensionVersion
    if (running === undefined || running === health.version)
      return pass(`extension connected${running ? ` (${running})` : ''}`)
    const mismatch = extensionVersionMismatch(health.version, running)
    return failOf(mismatch.text, mismatch.fix)
  }
  const load = `load ${extensionDir} unpacked in chrome://extensions`
  const seen = health.extensionSightings
  // A daemon older than the sightings cannot say more than "not connected".
  if (seen === undefined)
    return warnOf(
      'no browser has the bridge extension connected',
      `in the browser profile you use, ${load} (Developer mode on); if it is loaded there, its side panel says why it cannot connect`,
    )
  const { provenAt, refusedAt } = seen
  if (refusedAt !== undefined && (provenAt === undefined || refusedAt > provenAt))
    return failOf(
      `the bridge extension in the browser holds another secret than this config folder (asked ${ago(now, refusedAt)}): ` +
        'it was loaded from another config folder, or from a copy older than this secret',
      `in chrome://extensions, remove the bridge extension and load ${extensionDir} unpacked`,
    )
  if (provenAt !== undefined)
    return warnOf(
      `the bridge extension reached this daemon ${ago(now, provenAt)} but is not connected`,
      'open its side panel: it says why and what to do',
    )
  return warnOf(
    `no bridge extension has asked this daemon since it started ${ago(now, now - health.uptime * 1000)}`,
    `in the browser profile you use, ${load} (Developer mode on); an extension already loaded asks within ${EXTENSION_RETRY_CAP_S} s`,
  )
}

/** The short form for `bridge status`: the sentence, then what to do. */
export function extensionStatusLine(health: LinkHealth, extensionDir: string, now = Date.now()): string {
  const check = extensionCheck(health, extensionDir, now)
  if (check.mark === 'pass') return 'connected'
  const text = health.extensionConnected ? `connected, but ${check.text}` : `not connected: ${check.text}`
  return check.hint ? `${text}: ${check.hint}` : text
}

function ago(now: number, at: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000))
  if (s < 120) return `${s} s ago`
  const m = Math.round(s / 60)
  return m < 120 ? `${m} min ago` : `${Math.round(m / 60)} h ago`
}

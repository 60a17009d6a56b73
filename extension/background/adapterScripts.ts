/**
 * Which plugin adapters Chrome injects into new documents: one MAIN-world content script per plugin
 * with at least one tool on, registered at `document_start` for the plugin's URL patterns. A plugin
 * whose tools are all off has no registration and so runs no code in any page.
 *
 * For each registration this remembers when it took effect (after Chrome confirmed it). A document
 * whose navigation started after that moment got the adapter before any of its own scripts ran; an
 * older document did not (it was open before, or the adapter changed since) and is "not isolated"
 * until it is reloaded. Registrations and their times outlive the service worker and the browser
 * session (`persistAcrossSessions`, `chrome.storage.local`), so tabs restored when the browser starts
 * get the adapters the extension last knew of at their start; the next `sync.full` brings them up to
 * date (a plugin turned off meanwhile is unregistered then).
 */
import type { PluginState } from '../../src/protocol'

interface Registration {
  file: string
  hash: string
  patterns: string[]
  /** ms since epoch when Chrome confirmed the registration. */
  at: number
  /** ms since epoch when the extension learned the plugin must run (the sync that registered it). */
  requestedAt?: number
}

const STORAGE_KEY = 'adapterRegistrations'
const ID_PREFIX = 'adapter:'
/**
 * Clock allowance between the worker's Date.now() and a renderer's performance.timeOrigin. A document
 * that started within it of a registration counts as older (reload it): never the other way round.
 */
export const REGISTRATION_MARGIN_MS = 50

/** True when a plugin must run in pages: at least one tool is not off. */
export function isActive(p: PluginState): boolean {
  return p.tools.some((t) => t.permission !== 'off')
}

export class AdapterScripts {
  private registered = new Map<string, Registration>()
  /** Plugins whose registration failed (e.g. the daemon was still writing the adapter file). */
  private readonly failed = new Set<string>()
  private last: readonly PluginState[] = []
  private queue: Promise<void>

  constructor(private readonly onProblem: (message: string) => void = () => undefined) {
    this.queue = chrome.storage.local
      .get(STORAGE_KEY)
      .then((stored) => {
        const saved = stored[STORAGE_KEY] as Record<string, Registration> | undefined
        if (saved) this.registered = new Map(Object.entries(saved))
      })
      .catch(() => undefined)
  }

  /** Resolves once the registrations asked for so far are done (or failed). */
  settled(): Promise<void> {
    return this.queue
  }

  /** When the plugin's current registration took effect; undefined when it has none. */
  since(plugin: string): number | undefined {
    return this.registered.get(plugin)?.at
  }

  /**
   * Whether a document that started at `timeOrigin` began loading while the plugin's current
   * registration was on its way (after the extension learned the plugin must run, before Chrome
   * confirmed it): a load the user started after turning the plugin on, which a reload makes isolated.
   */
  startedWhileRegistering(plugin: string, timeOrigin: number): boolean {
    const r = this.registered.get(plugin)
    return r?.requestedAt !== undefined && timeOrigin >= r.requestedAt && !this.covers(plugin, timeOrigin)
  }

  /** Whether a document that started at `timeOrigin` got the plugin's current adapter at its start. */
  covers(plugin: string, timeOrigin: number): boolean {
    const at = this.since(plugin)
    return at !== undefined && timeOrigin >= at + REGISTRATION_MARGIN_MS
  }

  /** Makes Chrome's registrations match the plugins that must run (the rest are unregistered). */
  sync(plugins: readonly PluginState[]): Promise<void> {
    this.last = plugins
    const requestedAt = Date.now()
    const run = this.queue.then(() => this.apply(plugins, requestedAt))
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Tries the failed registrations again (called from the periodic sweep). */
  retryFailed(): Promise<void> {
    return this.failed.size > 0 ? this.sync(this.last) : Promise.resolve()
  }

  private async apply(plugins: readonly PluginState[], requestedAt: number): Promise<void> {
    const wanted = new Map(plugins.filter(isActive).map((p) => [p.name, p]))
    const existing = new Set(
      (await chrome.scripting.getRegisteredContentScripts())
        .map((s) => s.id)
        .filter((id) => id.startsWith(ID_PREFIX)),
    )
    const drop: string[] = []
    for (const id of existing) {
      const name = id.slice(ID_PREFIX.length)
      const p = wanted.get(name)
      const r = this.registered.get(name)
      if (
        !p ||
        !r ||
        r.hash !== p.adapterHash ||
        r.file !== p.adapterFile ||
        !samePatterns(r.patterns, p.urlPatterns)
      )
        drop.push(id)
    }
    for (const name of this.registered.keys())
      if (!existing.has(ID_PREFIX + name) || drop.includes(ID_PREFIX + name)) this.registered.delete(name)
    if (drop.length) await chrome.scripting.unregisterContentScripts({ ids: drop })
    this.failed.clear()
    for (const p of wanted.values()) {
      if (this.registered.has(p.name)) continue
      try {
        await chrome.scripting.registerContentScripts([
          {
            id: ID_PREFIX + p.name,
            js: [`adapters/${p.adapterFile}`],
            matches: p.urlPatterns,
            runAt: 'document_start',
            world: 'MAIN',
            allFrames: false,
            persistAcrossSessions: true,
          },
        ])
        this.registered.set(p.name, {
          file: p.adapterFile,
          hash: p.adapterHash,
          patterns: [...p.urlPatterns],
          at: Date.now(),
          requestedAt,
        })
      } catch (err) {
        this.failed.add(p.name)
        this.onProblem(
          `plugin ${p.name}: its adapter could not be registered (${err instanceof Error ? err.message : String(err)})`,
        )
      }
    }
    await chrome.storage.local
      .set({ [STORAGE_KEY]: Object.fromEntries(this.registered) })
      .catch(() => undefined)
  }
}

const samePatterns = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

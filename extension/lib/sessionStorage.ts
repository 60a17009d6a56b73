/**
 * What the extension keeps across a restart of its service worker, but not across the browser, in
 * chrome.storage.session: the origins approvals showed, the agents' tab groups, recordings under way.
 *
 * Chrome's storage is asynchronous: a read, a change and a write made by two callers at once would
 * each write back what the other did not see (an approval's pin lost, so its call ran on whatever the
 * tab showed by then). Here every read and change of one record goes one at a time, in the order
 * asked for, each change reading what the one before it wrote.
 *
 * @example
 *   const pins = new SessionRecord<Record<string, string>>('bridge.approvedOrigins', () => ({}))
 *   await pins.update((all) => void (all[id] = origin))
 *   const origin = await pins.update((all) => { const o = all[id]; delete all[id]; return o })
 */
export class SessionRecord<T> {
  private readonly inTurn = oneAtATime()

  constructor(
    private readonly key: string,
    /** The value when nothing is stored (or the stored one is not of this shape). */
    private readonly empty: () => T,
    private readonly isValue: (stored: unknown) => stored is T = (stored): stored is T =>
      typeof stored === 'object' && stored !== null,
  ) {}

  /** The record as stored now (after the changes asked for before). */
  read(): Promise<T> {
    return this.inTurn(() => this.load())
  }

  /**
   * Changes the record: `change` gets it as stored (to change in place) and what it returns is the
   * answer; the record is written back after, before the next read or change starts.
   */
  update<R>(change: (value: T) => R | Promise<R>): Promise<R> {
    return this.inTurn(async () => {
      const value = await this.load()
      const answer = await change(value)
      await chrome.storage.session.set({ [this.key]: value })
      return answer
    })
  }

  /** Replaces the record. */
  write(value: T): Promise<void> {
    return this.inTurn(() => chrome.storage.session.set({ [this.key]: value }))
  }

  /** Forgets the record. */
  remove(): Promise<void> {
    return this.inTurn(() => chrome.storage.session.remove(this.key))
  }

  private async load(): Promise<T> {
    const stored = (await chrome.storage.session.get(this.key))[this.key]
    return this.isValue(stored) ? stored : this.empty()
  }
}

/**
 * Entries kept under one prefix, each its own key, for a set that grows one entry at a time (a
 * recording's captured calls): adding one writes that one, not the whole set again.
 */
export class SessionEntries<T> {
  private readonly inTurn = oneAtATime()

  constructor(private readonly prefix: string) {}

  /** Adds or replaces the entry `id`. */
  set(id: string, value: T): Promise<void> {
    return this.inTurn(() => chrome.storage.session.set({ [this.prefix + id]: value }))
  }

  /** Every entry, by id. */
  all(): Promise<Map<string, T>> {
    return this.inTurn(async () => {
      const stored = await chrome.storage.session.get(null)
      const entries = new Map<string, T>()
      for (const [key, value] of Object.entries(stored))
        if (key.startsWith(this.prefix)) entries.set(key.slice(this.prefix.length), value as T)
      return entries
    })
  }

  /** Forgets the entries whose id `drop` says. */
  removeWhere(drop: (id: string) => boolean): Promise<void> {
    return this.inTurn(async () => {
      const keys = Object.keys(await chrome.storage.session.get(null)).filter(
        (key) => key.startsWith(this.prefix) && drop(key.slice(this.prefix.length)),
      )
      if (keys.length) await chrome.storage.session.remove(keys)
    })
  }
}

/** Runs the work given to it one piece at a time, in the order given (a failed piece stops none after it). */
function oneAtATime(): <R>(work: () => Promise<R>) => Promise<R> {
  let queue: Promise<unknown> = Promise.resolve()
  return (work) => {
    const run = queue.then(work)
    queue = run.catch(() => undefined)
    return run
  }
}

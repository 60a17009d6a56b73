/**
 * The extension as the audit log's independent witness. It keeps, in its own storage, the last signed
 * checkpoint of the daemon's audit tree it saw; on every connect and every side-panel open it asks
 * the daemon for a consistency proof from that checkpoint to the current one and checks it here, with
 * the shared proof code (src/protocol/auditProof.ts). A proof that fails, a smaller tree or another
 * key becomes an alarm that stays (in storage, across restarts) until the user acknowledges it; only
 * then is the daemon's current checkpoint trusted from there on.
 */
import {
  checkWitness,
  isAuditChange,
  isAuditCheckpoint,
  verifyCheckpointSignature,
  type AuditCheckpoint,
  type AuditConsistency,
  type WitnessVerdict,
} from '../../src/protocol/auditProof'
import type { AuditAlarmView } from '../shared/panelTypes'

type WitnessFailure = Extract<WitnessVerdict, { ok: false }>

const WITNESS_KEY = 'auditWitness'
const ALARM_KEY = 'auditAlarm'

interface Witnessed {
  checkpoint: AuditCheckpoint
  /** ISO time of the last check that found the log as it should be. */
  lastGoodAt: string
  /** Earlier checkpoints of the same tree, oldest first (to tell a cut tail from a rewrite). */
  history?: AuditCheckpoint[]
  /** When the daemon found its files changed by something else, as last acknowledged here. */
  changeSeen?: string
}

/** Earlier checkpoints kept: enough to find one below a cut of the last few calls. */
const HISTORY_MAX = 64

interface StoredAlarm extends AuditAlarmView {
  /** The daemon's checkpoint when the problem was found: trusted once the user acknowledges. */
  current: AuditCheckpoint
  /** The daemon's word of a change to its files, in the same answer: acknowledged with the alarm. */
  changeAt?: string
}

export class AuditWitness {
  private alarm: StoredAlarm | undefined
  private running: Promise<void> = Promise.resolve()
  private readonly loaded: Promise<void>

  constructor(
    /** GET of a daemon path (with the secret, to a daemon that proved itself), parsed JSON. */
    private readonly get: (path: string) => Promise<unknown>,
    private readonly onChange: () => void,
    private readonly log: (message: string) => void,
  ) {
    this.loaded = chrome.storage.local.get(ALARM_KEY).then((stored) => {
      this.alarm = stored[ALARM_KEY] as StoredAlarm | undefined
      if (this.alarm) onChange()
    })
  }

  /** The alarm the side panel shows at its top, until acknowledged. */
  get view(): AuditAlarmView | undefined {
    if (!this.alarm) return undefined
    const { problem, detail, lastGoodAt, foundAt } = this.alarm
    return { problem, detail, lastGoodAt, foundAt }
  }

  /** One check at a time; a check asked for while one runs follows it. */
  check(): Promise<void> {
    this.running = this.running
      .then(() => this.checkOnce())
      .catch((error: unknown) => {
        this.log(`audit log check did not run: ${error instanceof Error ? error.message : String(error)}`)
      })
    return this.running
  }

  /** The user saw the alarm: the daemon's checkpoint of that moment is the one to extend from now on. */
  async acknowledge(): Promise<void> {
    await this.loaded
    const alarm = this.alarm
    if (!alarm) return
    const seen: Witnessed = { checkpoint: alarm.current, lastGoodAt: new Date().toISOString() }
    const before = (await chrome.storage.local.get(WITNESS_KEY))[WITNESS_KEY] as Witnessed | undefined
    const changeSeen = alarm.changeAt ?? before?.changeSeen
    if (changeSeen !== undefined) seen.changeSeen = changeSeen
    await chrome.storage.local.set({ [WITNESS_KEY]: seen })
    await chrome.storage.local.remove(ALARM_KEY)
    this.alarm = undefined
    this.onChange()
  }

  private async checkOnce(): Promise<void> {
    await this.loaded
    // While an alarm waits for the user, the checkpoint it is about stays the one to compare with.
    if (this.alarm) return
    const stored = (await chrome.storage.local.get(WITNESS_KEY))[WITNESS_KEY] as Witnessed | undefined
    if (!stored || !isAuditCheckpoint(stored.checkpoint)) {
      // First sight: trust on first use (docs/security.md says what that leaves open).
      const checkpoint = await this.get('/audit/checkpoint')
      if (!isAuditCheckpoint(checkpoint) || !(await verifyCheckpointSignature(checkpoint)))
        throw new Error('the daemon’s first checkpoint has no valid signature')
      await this.store(checkpoint)
      return
    }
    const answer = (await this.get(`/audit/consistency?from=${stored.checkpoint.size}`)) as AuditConsistency
    if (!isAuditCheckpoint(answer?.checkpoint) || !Array.isArray(answer.proof))
      throw new Error('the daemon’s answer to /audit/consistency is not a proof')
    const first = await checkWitness(stored.checkpoint, answer)
    // The daemon's own word that its files held what it did not write (a whole line appended after the
    // last checkpoint here extends the tree kept): an alarm once per finding.
    const change = isAuditChange(answer.changed) ? answer.changed : undefined
    const newChange = change !== undefined && change.at !== stored.changeSeen
    if (first.ok && !newChange) {
      await this.store(answer.checkpoint, stored)
      return
    }
    const verdict: WitnessFailure = !first.ok
      ? first.problem === 'truncated'
        ? await this.truncatedOrRewritten(stored, answer, first)
        : first
      : {
          ok: false,
          problem: 'changed',
          detail: `${change!.entriesOnDisk} entries in the files where bridge had written ${change!.entriesWritten}; found ${change!.at}`,
        }
    this.alarm = {
      problem: verdict.problem,
      detail: verdict.detail,
      lastGoodAt: stored.lastGoodAt,
      foundAt: new Date().toISOString(),
      current: answer.checkpoint,
      ...(change ? { changeAt: change.at } : {}),
    }
    await chrome.storage.local.set({ [ALARM_KEY]: this.alarm })
    this.log(`audit log ${verdict.problem}: ${verdict.detail}`)
    this.onChange()
  }

  /**
   * Fewer entries than before: a cut tail when what is left is what an earlier checkpoint of this
   * extension's saw (proved from the largest one it kept that fits), a rewrite when it is not (a
   * line deleted from the middle). With no earlier checkpoint small enough, a cut it is.
   */
  private async truncatedOrRewritten(
    stored: Witnessed,
    answer: AuditConsistency,
    verdict: WitnessFailure,
  ): Promise<WitnessFailure> {
    const size = answer.checkpoint.size
    const earlier = [...(stored.history ?? []), stored.checkpoint]
      .filter((c) => isAuditCheckpoint(c) && c.key === answer.checkpoint.key && c.size <= size)
      .sort((a, b) => b.size - a.size)[0]
    if (!earlier) return verdict
    const again = (await this.get(`/audit/consistency?from=${earlier.size}`)) as AuditConsistency
    const prefix = await checkWitness(earlier, again)
    return prefix.ok
      ? verdict
      : {
          ok: false,
          problem: 'rewritten',
          detail: `${size} entries where ${stored.checkpoint.size} were seen, and the first ${earlier.size} are not the ones seen before`,
        }
  }

  private async store(checkpoint: AuditCheckpoint, before?: Witnessed): Promise<void> {
    const history =
      before && before.checkpoint.key === checkpoint.key
        ? [...(before.history ?? []), before.checkpoint].slice(-HISTORY_MAX)
        : []
    const witnessed: Witnessed = { checkpoint, lastGoodAt: new Date().toISOString(), history }
    if (before?.changeSeen !== undefined) witnessed.changeSeen = before.changeSeen
    await chrome.storage.local.set({ [WITNESS_KEY]: witnessed })
  }
}

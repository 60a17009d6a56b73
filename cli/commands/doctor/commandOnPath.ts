/**
 * `bridge doctor`'s check that `bridge` in the person's PATH is this program. iproute2's
 * /usr/sbin/bridge (Debian, Ubuntu) can come first, and then every `bridge ...` command fails with
 * `Object "..." is unknown`; the hint says exactly what to run instead.
 */
import { shadowAdvice, type SelfCommand } from '../../shared/selfCommand'
import { pass, warnOf, type CheckResult } from './check'

export function checkCommandOnPath(self: SelfCommand): CheckResult {
  switch (self.via) {
    case 'path':
      return pass('`bridge` on PATH is this program')
    case 'npx':
      return pass(`running through npx: commands are \`${self.command} <command>\``)
    default: {
      const advice = shadowAdvice(self)
      return advice ? warnOf(advice.problem, advice.fix) : pass('`bridge` on PATH is this program')
    }
  }
}

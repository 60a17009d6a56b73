/**
 * Ports, one rule everywhere (CLI flags, BRIDGE_PORT, PORT, config.json, `bridge config set port`): a
 * port is written in digits only (no sign, exponent, hex, decimals or spaces) and is 1-65535. 0 is
 * accepted only where bridge itself listens (`bridge start`, the daemon, the demo site), and means any
 * free port. The error names the value and the range.
 *
 * The port a `bridge` command uses: `--port`, then BRIDGE_PORT, then `port` in config.json, then 9515.
 * `bridge start` also honours PORT (the server's own variable) after BRIDGE_PORT.
 *
 * @example
 *   parsePort('9515') // 9515
 *   parsePort('0x50') // throws: invalid port "0x50" (expected 1-65535)
 *   parsePort('0', { listen: true }) // 0: any free port
 */
import { DEFAULT_PORT } from '../protocol/constants'
import type { Validation } from '../validation'

export const PORT_MAX = 65535

export interface PortUse {
  /** bridge listens on this port itself: 0 is accepted and means any free port. */
  listen?: boolean
}

/** The range a port must be in, as the error shows it. */
export const portRange = ({ listen = false }: PortUse = {}): string =>
  listen ? `0-${PORT_MAX}; 0 picks a free port` : `1-${PORT_MAX}`

/** One port given as text (a flag, a variable) or a number (config.json): the port, or why not. */
export function checkPort(value: unknown, use: PortUse = {}): Validation<number> {
  const text =
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value)
  const port = typeof value === 'number' || /^\d{1,5}$/.test(text) ? Number(text) : NaN
  if (Number.isInteger(port) && port >= (use.listen ? 0 : 1) && port <= PORT_MAX)
    return { ok: true, value: port }
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text
  return { ok: false, message: `invalid port "${shown}" (expected ${portRange(use)})` }
}

/** `checkPort` that throws its message. */
export function parsePort(value: unknown, use: PortUse = {}): number {
  const checked = checkPort(value, use)
  if (!checked.ok) throw new Error(checked.message)
  return checked.value
}

export interface PortSources {
  flag?: unknown
  env?: NodeJS.ProcessEnv
  configPort?: number
  /** `start` only: accept PORT and port 0. */
  forServer?: boolean
}

export function resolvePort({ flag, env = process.env, configPort, forServer = false }: PortSources): number {
  const candidates = forServer ? [flag, env.BRIDGE_PORT, env.PORT] : [flag, env.BRIDGE_PORT]
  for (const candidate of candidates) {
    if (candidate === undefined || candidate === '' || candidate === true) continue
    return parsePort(candidate, { listen: forServer })
  }
  return configPort ?? DEFAULT_PORT
}

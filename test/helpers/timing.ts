/**
 * Time limits of the slowest steps of the suite on a loaded 2-core machine: starting Chromium with the
 * extension beside a daemon, and driving npm against a local registry (verdaccio). Each is generous and scales with
 * `BRIDGE_TEST_TIME_SCALE` (a factor, default 1): `BRIDGE_TEST_TIME_SCALE=3 npm test` on a slower box.
 * These are limits for something stuck, never performance targets (those are in bench/).
 */
const scale = (() => {
  const raw = Number(process.env.BRIDGE_TEST_TIME_SCALE ?? '1')
  return Number.isFinite(raw) && raw >= 1 ? raw : 1
})()

/** `ms` times the configured scale. */
export function scaled(ms: number): number {
  return Math.round(ms * scale)
}

/** One npm command against the local registry (publish, install, view). */
export const REGISTRY_NPM_TIMEOUT_MS = scaled(180_000)
/** One test (or set-up hook) that runs several npm commands. */
export const REGISTRY_TEST_TIMEOUT_MS = scaled(600_000)
/** A user-visible step that waits on npm through the daemon (install, update, search in the panel). */
export const REGISTRY_STEP_TIMEOUT_MS = scaled(180_000)

/**
 * A test that runs many processes one after another (a dozen CLI commands, four processes racing for
 * a lock): each is quick, but on a loaded machine they add up past the default 30 s.
 */
export const PROCESS_SEQUENCE_TIMEOUT_MS = scaled(120_000)

/** A `beforeAll` that starts Chromium with the extension beside a daemon (and builds a plugin). */
export const BROWSER_START_TIMEOUT_MS = scaled(120_000)

/**
 * A page that floods the browser (tens of frames declaring megabytes of tools) to load and declare
 * everything, and the extension and the daemon to take it in.
 */
export const FLOOD_PAGE_TIMEOUT_MS = scaled(240_000)

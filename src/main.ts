/**
 * The server binary (dist/server.js). `node dist/server.js [--port <n>] [--dev] [--inspect]`; PORT, BRIDGE_* env.
 * PORT=0 picks a free port; the log line `bridge listening on http://127.0.0.1:<port>` names it.
 * SIGTERM / SIGINT stop it gracefully (exit 0); a start failure (port in use, broken config file)
 * prints the reason and exits 1.
 */
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createDaemon, type Daemon } from './daemon'
import { stopOnSignals } from './signals'
import { bridgePaths, configDirFromEnv } from './config/paths'
import { isBridgeError } from './errors'
import { engineChoiceFromEnv } from './http/createEngine'
import { runSupervisor, SUPERVISED_ENV, type ListeningMessage } from './devSupervisor'
import { inspectUrlFrom } from './machineInspector'
import { log } from './log'
import { resolvePort } from './config/port'

const logger = log.withTag('daemon')

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      dev: { type: 'boolean', default: false },
      inspect: { type: 'boolean', default: false },
    },
    strict: true,
  })
  const dev = values.dev || process.env.BRIDGE_DEV === '1'
  let port: number
  try {
    // The server reads --port and PORT only (BRIDGE_PORT and config.json are the CLI's, SPEC).
    port = resolvePort({ flag: values.port, env: { PORT: process.env.PORT }, forServer: true })
  } catch (error) {
    logger.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
  // Dev mode: this process supervises, and the daemon runs (and re-runs after a rebuild) as its child.
  if (dev && process.env[SUPERVISED_ENV] !== '1') {
    await runSupervisor({
      serverFile: fileURLToPath(import.meta.url),
      args: ['--dev', ...(values.inspect ? ['--inspect'] : [])],
      port,
      paths: bridgePaths(configDirFromEnv()),
    })
    return
  }
  const signals = stopOnSignals()
  // Supervised: if the supervisor goes away, stop as if told to.
  const supervised = process.env[SUPERVISED_ENV] === '1' && process.send !== undefined
  if (supervised) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'))
  let daemon: Daemon
  try {
    daemon = await createDaemon({
      configDir: configDirFromEnv(),
      port,
      engine: engineChoiceFromEnv(),
      mode: dev ? 'dev' : 'production',
      skipPermissionsEnv: process.env.BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS === '1',
      inspectUrl: inspectUrlFrom(values.inspect),
      // Its supervisor holds the config folder's lock across restarts.
      holdsLock: !supervised,
    })
  } catch (error) {
    logger.error(isBridgeError(error) || error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
  signals.attach(daemon)
  if (supervised) process.send?.({ type: 'listening', port: daemon.port } satisfies ListeningMessage)
}

await main()

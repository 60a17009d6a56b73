/**
 * `bridge start [--port <n>] [--background] [--dev] [--show-config] [--inspect]`: prepares `~/.bridge` (first run: the
 * directory, config.json, the secret), installs the extension files, and runs the daemon in the
 * foreground, or in the background with `server.pid`.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CAC } from 'cac'
import { atomicWriteFile } from '../../src/config/atomicWrite'
import { alreadyRunningMessage, readDaemonLock } from '../../src/config/daemonLock'
import { bridgePaths, configDirFromEnv, type BridgePaths } from '../../src/config/paths'
import { prepareConfigDir, type PreparedFiles } from '../../src/config/setup'
import { createDaemon } from '../../src/daemon'
import { stopOnSignals } from '../../src/signals'
import { engineChoiceFromEnv } from '../../src/http/createEngine'
import { inspectUrlFrom } from '../../src/machineInspector'
import { baseUrl, fetchHealth } from '../../src/http/daemonClient'
import { syncExtensionFiles } from '../shared/extensionFiles'
import { defaultClient, mcpClientConfig } from '../shared/mcpConfig'
import { errorText, fail, say, sayWithSecret } from '../shared/output'
import { shadowNotice } from '../shared/selfCommand'
import { resolvePort } from '../../src/config/port'

interface StartFlags {
  port?: unknown
  dev?: boolean
  background?: boolean
  showConfig?: boolean
  inspect?: boolean
}

const BACKGROUND_START_TIMEOUT_MS = 15_000
/** How long `start` waits for an answer on its port before it takes the port as free. */
const PORT_PROBE_TIMEOUT_MS = 2_000

export function registerStart(cli: CAC): void {
  cli
    .command('start', 'Start the daemon on 127.0.0.1 (foreground unless --background)')
    .option('--background', 'Run in the background; writes server.pid and returns')
    .option(
      '--dev',
      'Plugin development: watch local plugins and reload them (and their open tabs) when they are rebuilt',
    )
    .option(
      '--show-config',
      'Print the MCP configuration of the `default` client and the auth.json secret, each labelled',
    )
    .option(
      '--inspect',
      'Development: stream the actor system to the inspector at BRIDGE_INSPECT_URL (default ws://127.0.0.1:8080)',
    )
    .action((flags: StartFlags) => start(flags))
}

async function start(flags: StartFlags): Promise<void> {
  const paths = bridgePaths(configDirFromEnv())
  let files: PreparedFiles
  let port: number
  let inspectUrl: string | undefined
  try {
    inspectUrl = inspectUrlFrom(flags.inspect === true)
    files = prepareConfigDir(paths)
    port = resolvePort({ flag: flags.port, configPort: files.config.port, forServer: true })
  } catch (error) {
    return fail(errorText(error))
  }
  // One daemon per config folder (src/config/daemonLock.ts), on whatever port: the one that runs is
  // named, with how to stop it, before anything slow (plugin discovery) runs. Its configuration is
  // what --show-config asks for.
  const lock = await readDaemonLock(paths)
  if (lock.held && lock.info && lock.info.port > 0 && flags.showConfig) {
    say(`bridge ${lock.info.version} is already running on ${baseUrl(lock.info.port)}; its configuration:`)
    return printSetup(paths, files, lock.info.port, flags)
  }
  if (lock.held) return fail(alreadyRunningMessage(lock.info, paths))
  // A daemon of another folder (or an older bridge) on the port: a second daemon could not listen.
  // The commands it suggests reach this port: with `--port` when other commands would look elsewhere.
  const portArg = portOfOtherCommands(files.config.port) === port ? '' : ` --port ${port}`
  const taken = port === 0 ? null : await portTaken(port, files.secret, portArg)
  if (taken?.running && flags.showConfig) {
    say(`bridge ${taken.running} is already running on ${baseUrl(port)}; its configuration:`)
    return printSetup(paths, files, port, flags)
  }
  if (taken) return fail(taken.message)

  const extension = syncExtensionFiles(paths)
  if (extension === 'missing')
    say('note: the extension is not built (run `npm run build`); the extension folder has only its settings')

  if (flags.background) return startInBackground(paths, files, port, flags, inspectUrl)

  const signals = stopOnSignals()
  let daemon
  try {
    daemon = await createDaemon({
      configDir: paths.dir,
      port,
      engine: engineChoiceFromEnv(),
      mode: flags.dev ? 'dev' : 'production',
      skipPermissionsEnv: process.env.BRIDGE_DANGEROUSLY_SKIP_PERMISSIONS === '1',
      inspectUrl,
    })
  } catch (error) {
    fail(errorText(error))
    process.exit(1)
  }
  signals.attach(daemon)
  printSetup(paths, files, daemon.port, flags)
}

async function startInBackground(
  paths: BridgePaths,
  files: PreparedFiles,
  port: number,
  flags: StartFlags,
  inspectUrl: string | undefined,
): Promise<void> {
  const serverInfo = join(paths.extensionDir, 'server.json')
  rmSync(serverInfo, { force: true })
  const child = spawn(process.execPath, [fileURLToPath(new URL('../server.js', import.meta.url))], {
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      BRIDGE_CONFIG_DIR: paths.dir,
      ...(flags.dev ? { BRIDGE_DEV: '1' } : {}),
      ...(inspectUrl ? { BRIDGE_INSPECT: '1', BRIDGE_INSPECT_URL: inspectUrl } : {}),
    },
  })
  const exited: { code: number | null } = { code: null }
  child.once('exit', (code) => (exited.code = code ?? 1))
  const deadline = Date.now() + BACKGROUND_START_TIMEOUT_MS
  // The daemon writes server.json once it listens; then /health must answer with our secret.
  while (Date.now() < deadline && exited.code === null) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    if (!existsSync(serverInfo)) continue
    const bound = (JSON.parse(readFileSync(serverInfo, 'utf8')) as { port: number }).port
    if ((await fetchHealth(bound, files.secret, 1_000)).ok) {
      atomicWriteFile(paths.pidFile, `${child.pid}\n`)
      child.unref()
      say(`bridge started in the background (pid ${child.pid}), listening on ${baseUrl(bound)}`)
      printSetup(paths, files, bound, flags)
      return
    }
  }
  if (exited.code === null) child.kill('SIGTERM')
  fail(
    `the daemon did not start${exited.code !== null ? ` (exit code ${exited.code})` : ''}; see ${paths.serverLog}`,
  )
}

/** The port `bridge status` and the rest use without `--port`, or undefined when BRIDGE_PORT is invalid for them. */
function portOfOtherCommands(configPort: number | undefined): number | undefined {
  try {
    return resolvePort({ configPort })
  } catch {
    return undefined
  }
}

/**
 * Why `port` cannot be used, or null when nothing answers on it: this bridge (its version, when it
 * proved it knows our secret), or another program.
 */
async function portTaken(
  port: number,
  secret: string,
  portArg: string,
): Promise<{ running?: string; message: string } | null> {
  const health = await fetchHealth(port, secret, PORT_PROBE_TIMEOUT_MS)
  if (health.ok)
    return {
      running: health.health.version,
      message: `bridge ${health.health.version} is already running on ${baseUrl(port)}: port ${port} is taken. \`bridge status${portArg}\` shows it, \`bridge start --show-config${portArg}\` prints its MCP configuration, \`bridge stop${portArg}\` stops it if it was started with --background`,
    }
  if (health.reason === 'not_running') return null
  return {
    message: `port ${port} is already in use (${health.message}); choose another with --port, or stop what listens there`,
  }
}

function printSetup(paths: BridgePaths, files: PreparedFiles, port: number, flags: StartFlags): void {
  const firstRun = files.createdConfig || files.createdSecret
  say()
  // PATH's `bridge` may be another program (iproute2's): said first, before any command to paste.
  const shadowed = shadowNotice()
  if (shadowed) say(`Note: ${shadowed} The commands below are written that way.`)
  if (firstRun) say(`First run: created ${paths.configFile} and a new secret in ${paths.authFile}.`)
  // The MCP client gets a token of its own (the `default` client), never the auth.json secret.
  const client = files.createdClient ?? (flags.showConfig ? defaultClient(paths) : null)
  if (files.createdClient) say(`Created the MCP client "default" in ${paths.clientsFile}.`)
  if (client) {
    say(
      `MCP client "${client.name}": add this to your MCP client (it holds the client's token; keep it private):`,
    )
    sayWithSecret(mcpClientConfig(port, client.token))
    say(
      'Or let bridge write it: `bridge client add <name> --for claude-code|cursor|vscode|windsurf|claude-desktop|gemini-cli|codex`.',
    )
  } else if (flags.showConfig) {
    say(
      'There is no MCP client named "default": `bridge client add <name>` creates one and prints its configuration.',
    )
  } else {
    say(
      'MCP client configuration: `bridge start --show-config` prints it again; `bridge client --help` for more clients.',
    )
  }
  if (flags.showConfig) {
    say()
    say('auth.json secret (for the extension and the bridge CLI only; never give it to an MCP client):')
    sayWithSecret(`  ${files.secret}`)
  }
  say()
  say(
    'Browser extension: open chrome://extensions, turn on Developer mode, choose "Load unpacked" and select',
  )
  say(`  ${paths.extensionDir}`)
  if (firstRun) {
    say()
    // Every tool starts off (SPEC): an agent lists none until the person turns some on.
    say('Every tool is off until you turn it on, so agents see none yet. To turn on the core browser tools')
    say('(each call asks you in the side panel first):')
    say('  `bridge config set plugin-permission.browser ask`')
  }
  say()
}

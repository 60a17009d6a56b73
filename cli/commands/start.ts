/**
 * `bridge start [--port <n>] [--background] [--show-config] [--inspect]`: prepares `~/.bridge` (first run: the
 * directory, config.json, the secret), installs the extension files, and runs the daemon in the
 * foreground, or in the background with `server.pid`.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CAC } from 'cac'
import { atomicWriteFile } from '../../src/config/atomicWrite'
import { bridgePaths, configDirFromEnv, type BridgePaths } from '../../src/config/paths'
import { prepareConfigDir, type PreparedFiles } from '../../src/config/setup'
import { createDaemon } from '../../src/daemon'
import { stopOnSignals } from '../../src/signals'
import { engineChoiceFromEnv } from '../../src/http/createEngine'
import { inspectUrlFrom } from '../../src/machineInspector'
import { baseUrl, fetchHealth } from '../shared/daemonClient'
import { syncExtensionFiles } from '../shared/extensionFiles'
import { defaultClient, mcpClientConfig } from '../shared/mcpConfig'
import { errorText, fail, say, sayWithSecret } from '../shared/output'
import { resolvePort } from '../../src/config/port'

interface StartFlags {
  port?: unknown
  background?: boolean
  showConfig?: boolean
  inspect?: boolean
}

const BACKGROUND_START_TIMEOUT_MS = 15_000

export function registerStart(cli: CAC): void {
  cli
    .command('start', 'Start the daemon on 127.0.0.1 (foreground unless --background)')
    .option('--background', 'Run in the background; writes server.pid and returns')
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
      mode: 'production',
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
  const running = await fetchHealth(port, files.secret, 1_000)
  if (running.ok || running.reason !== 'not_running')
    return fail(`port ${port} is already in use (is bridge already running?)`)
  const serverInfo = join(paths.extensionDir, 'server.json')
  rmSync(serverInfo, { force: true })
  const child = spawn(process.execPath, [fileURLToPath(new URL('../server.js', import.meta.url))], {
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      PORT: String(port),
      BRIDGE_CONFIG_DIR: paths.dir,
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

function printSetup(paths: BridgePaths, files: PreparedFiles, port: number, flags: StartFlags): void {
  const firstRun = files.createdConfig || files.createdSecret
  say()
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
      'Or let bridge write it: `bridge client add <name> --for claude-code|cursor|vscode|windsurf|claude-desktop`.',
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
  say()
}

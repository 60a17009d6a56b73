/**
 * `bridge-plugin`: the plugin developer's tool.
 *   bridge-plugin build [-w]      build dist/tools.json and dist/adapter.iife.js, register, reload
 *   bridge-plugin inspect [--json] describe the last build
 */
import { cac } from 'cac'
import { resolve } from 'node:path'
import { buildPlugin } from '../src/authoring/buildPlugin'
import { formatInspect, readBuiltManifest } from '../src/authoring/describeBuild'
import { registerLocalPlugin } from '../src/authoring/registerLocal'
import { readPluginPackage } from '../src/authoring/readPackage'
import { requestReload, type ReloadOutcome } from '../src/authoring/requestReload'
import { typeCheckPlugin } from '../src/authoring/typeCheck'
import { watchPlugin } from '../src/authoring/watch'
import { configDirFromEnv } from '../src/config/paths'
import { log } from '../src/log'
import { BRIDGE_VERSION } from '../src/protocol/constants'
import { runningDaemonTarget } from './shared/daemonTarget'
import { errorText, failAs } from './shared/output'
import { portFlagsProblem } from './shared/portFlags'

interface BuildFlags {
  watch?: boolean
  port?: string
  dir?: string
  register?: boolean
  reload?: boolean
  typecheck?: boolean
}

const cli = cac('bridge-plugin')

cli
  .command('build', 'Build the plugin in the current folder, register it and reload a running daemon')
  .option('-w, --watch', 'Rebuild when a source file changes')
  .option('--dir <path>', 'Plugin folder (default: current folder)')
  .option('--port <port>', 'Daemon port for the reload (default: BRIDGE_PORT, config.json, 9515)')
  .option('--no-register', 'Do not add the folder to localPlugins in config.json')
  .option('--no-reload', 'Do not ask a running daemon to reload')
  .option('--no-typecheck', 'Do not type-check with the TypeScript installed in the plugin folder')
  .action(async (flags: BuildFlags) => {
    const dir = resolve(flags.dir ?? process.cwd())
    const ok = await buildOnce(dir, flags)
    if (!flags.watch) {
      if (!ok) process.exitCode = 1
      return
    }
    const watcher = await watchPlugin(dir, async (changed) => {
      log.info(`\nchanged: ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', ...' : ''}`)
      await buildOnce(dir, flags)
    })
    log.info(`watching ${dir} for changes (Ctrl-C to stop)`)
    const stop = () => void watcher.close().then(() => process.exit(0))
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })

cli
  .command('inspect', 'Describe the last build (dist/tools.json)')
  .option('--json', 'Print the manifest as JSON')
  .option('--dir <path>', 'Plugin folder (default: current folder)')
  .action((flags: { json?: boolean; dir?: string }) => {
    try {
      const manifest = readBuiltManifest(resolve(flags.dir ?? process.cwd()))
      process.stdout.write(
        flags.json ? `${JSON.stringify(manifest, null, 2)}\n` : `${formatInspect(manifest)}\n`,
      )
    } catch (error) {
      fail(error)
    }
  })

async function buildOnce(dir: string, flags: BuildFlags): Promise<boolean> {
  const started = Date.now()
  try {
    // A broken package.json is the cause, not a missing TypeScript or tsconfig: said first, alone.
    readPluginPackage(dir)
  } catch (error) {
    fail(error, 'build failed: ')
    return false
  }
  if (flags.typecheck !== false && !typeChecks(dir)) return false
  let built: Awaited<ReturnType<typeof buildPlugin>>
  try {
    built = await buildPlugin(dir)
  } catch (error) {
    fail(error, 'build failed: ')
    return false
  }
  const { manifest } = built
  log.success(
    `built ${manifest.name}@${manifest.version}: ${manifest.tools.length} tool${manifest.tools.length === 1 ? '' : 's'} (${manifest.tools.map((t) => t.name).join(', ')}), adapter ${(built.adapterBytes / 1024).toFixed(1)} KB in ${Date.now() - started} ms`,
  )
  const configDir = configDirFromEnv()
  if (flags.register !== false) {
    try {
      const registration = registerLocalPlugin(dir, configDir)
      if (registration.added) log.info(`registered ${dir} in ${registration.configFile} (localPlugins)`)
    } catch (error) {
      fail(error)
      return false
    }
  }
  if (flags.reload !== false) {
    // The build is done and on disk: a daemon we cannot reach or talk to is worth a warning, not a failure.
    try {
      const { port, secret } = await runningDaemonTarget(flags.port, { configDir, brokenConfig: 'ignore' })
      report(await requestReload({ port, secret, pluginName: manifest.name, pluginDir: dir }), manifest.name)
    } catch (error) {
      log.warn(
        `built, but could not ask the daemon to reload: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }
  return true
}

/** Type errors fail the build before dist/ is touched: a running daemon keeps the last good build. */
function typeChecks(dir: string): boolean {
  const result = typeCheckPlugin(dir)
  if (!result.ran) {
    log.warn(`not type-checked: ${result.reason}`)
    return true
  }
  if (result.errors.length === 0) {
    log.info(
      `type-checked ${result.files} file${result.files === 1 ? '' : 's'} (TypeScript ${result.version})`,
    )
    return true
  }
  refuse(`build failed: type errors (TypeScript ${result.version}):\n${result.errors.join('\n')}`)
  return false
}

function report(outcome: ReloadOutcome, name: string): void {
  switch (outcome.kind) {
    case 'dev-mode':
      log.info(`the daemon on port ${outcome.port} runs in dev mode and reloads ${name} by itself`)
      return
    case 'no-daemon':
      log.info(`no bridge daemon on port ${outcome.port}; it will load ${name} when it starts`)
      return
    case 'impostor':
      // The build itself succeeded; the exit code says the reload could not be asked for safely.
      refuse(`built, but did not ask for a reload: ${outcome.message}`)
      return
    case 'refused':
      log.warn(
        `the daemon on port ${outcome.port} refused the reload (${outcome.status}: ${outcome.message})`,
      )
      return
    case 'reloaded':
      if (outcome.failure) log.warn(`daemon reloaded, but ${name} failed to load: ${outcome.failure}`)
      else
        log.info(
          `daemon reloaded in ${outcome.durationMs} ms: ${outcome.plugins} plugin${outcome.plugins === 1 ? '' : 's'}${outcome.loaded ? `, ${name} loaded` : ''}`,
        )
  }
}

/** A refusal on stderr as `bridge-plugin: <reason>`, exit code 1. */
function refuse(text: string): void {
  failAs('bridge-plugin', text)
}

function fail(error: unknown, prefix = ''): void {
  refuse(`${prefix}${errorText(error)}`)
}

cli.help()
cli.version(BRIDGE_VERSION, '-V, --version')
const portProblem = portFlagsProblem(process.argv.slice(2))
if (portProblem !== undefined) fail(portProblem)
else {
  cli.parse(process.argv, { run: false })
  if (!cli.matchedCommand && !cli.options.help && !cli.options.version) {
    if (cli.args.length) {
      refuse(`unknown command "${String(cli.args[0])}"; the commands are build and inspect`)
    } else cli.outputHelp()
  } else await cli.runMatchedCommand()
}

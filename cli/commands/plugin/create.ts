/**
 * `bridge plugin create [name] [--domain] [--display] [--description] [--dir]`: scaffolds a plugin
 * package in `./bridge-plugin-<name>`. Missing answers are asked interactively on a terminal; without
 * one, the name is required and the domain defaults to example.com (with a warning).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { scaffoldPlugin } from '../../../src/authoring/scaffold'
import { sdkDir } from '../../../src/authoring/sdkLocation'
import { pluginNameProblem } from '../../../src/authoring/readPackage'
import { pluginNameFromPackage } from '../../../src/protocol/constants'
import { log } from '../../../src/log'

export interface CreateFlags {
  domain?: string
  display?: string
  description?: string
  /** Parent folder (default: the current folder). */
  dir?: string
}

export interface CreateIo {
  interactive: boolean
  ask(message: string, initial?: string): Promise<string>
}

export const terminalIo = (): CreateIo => ({
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  ask: async (message, initial) => {
    const answer = await log.prompt(message, {
      type: 'text',
      ...(initial ? { initial, default: initial } : {}),
      cancel: 'reject',
    })
    return answer.trim()
  },
})

/** Creates the plugin folder; returns its path. Throws an Error whose message is for the user. */
export async function createPlugin(
  nameArg: string | undefined,
  flags: CreateFlags,
  io: CreateIo = terminalIo(),
): Promise<string> {
  let name = nameArg?.trim()
  if (!name) {
    if (!io.interactive)
      throw new Error(
        'a plugin name is required: bridge plugin create <name> --domain <site> (lowercase letters, digits, hyphens)',
      )
    name = await askUntilValid(io, 'Plugin name (lowercase, e.g. my-site)', undefined, (v) =>
      pluginNameProblem(pluginNameFromPackage(v)),
    )
  }
  // A name that cannot be is refused before any question or note about the rest.
  const nameProblem = pluginNameProblem(pluginNameFromPackage(name))
  if (nameProblem) throw new Error(nameProblem)
  let domain = flags.domain?.trim()
  if (!domain && io.interactive)
    domain = await io.ask('Site domain the plugin works on (e.g. example.com)', 'example.com')
  if (!domain) {
    domain = 'example.com'
    log.warn('no --domain given: the plugin targets example.com; change bridge.urlPatterns in package.json')
  }
  let display = flags.display
  if (display === undefined && io.interactive) display = await io.ask('Display name', undefined)
  let description = flags.description
  if (description === undefined && io.interactive)
    description = await io.ask('One-line description', undefined)

  const scaffold = scaffoldPlugin({
    name,
    domain,
    ...(display ? { displayName: display } : {}),
    ...(description ? { description } : {}),
    sdkEntry: join(sdkDir(), 'index.ts'),
  })
  const target = resolve(flags.dir ?? process.cwd(), scaffold.packageName)
  if (existsSync(target) && readdirSync(target).length > 0)
    throw new Error(`${target} already exists and is not empty; choose another name or remove it`)
  for (const [file, content] of Object.entries(scaffold.files)) {
    const path = join(target, file)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, content)
  }
  const shown = relative(process.cwd(), target) || '.'
  log.success(`created ${scaffold.packageName} in ${target} (runs on ${scaffold.urlPatterns.join(', ')})`)
  log.info(
    [
      'next:',
      `  cd ${shown}`,
      '  npm install       TypeScript, for the type-check of each build',
      '  npm test          build and run the generated test',
      '  npm run build     build and register with bridge (the running daemon reloads)',
      '  npm run dev       rebuild on every change',
      '  bridge start --dev   in another terminal: each rebuild reloads the plugin and its open tabs',
      `Then turn the tools on in the bridge side panel; agents see them as ${scaffold.name}_<tool>.`,
    ].join('\n'),
  )
  return target
}

async function askUntilValid(
  io: CreateIo,
  message: string,
  initial: string | undefined,
  problem: (value: string) => string | undefined,
): Promise<string> {
  for (;;) {
    const value = await io.ask(message, initial)
    const why = problem(value)
    if (!why) return value
    log.warn(why)
  }
}

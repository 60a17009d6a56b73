/**
 * When `bridge` on PATH is another program (iproute2's /usr/sbin/bridge on Debian and Ubuntu), the
 * first-run banner and `bridge doctor` say so and print commands that work as printed: every command
 * they quote is pasted into a shell with the same PATH and must run this program.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI_JS, bridgeBinDir, daemonEnv, tempConfigDir } from '../../helpers/daemon'
import { runCommand } from '../../helpers/runCommand'

const STRANGER_SAYS = 'is unknown, try "bridge help"'
const TIMEOUT_MS = 60_000

describe('a bridge shadowed on PATH by another program', () => {
  let bins: string
  /** A folder with a `bridge` that is not this program, as /usr/sbin holds iproute2's. */
  let strangerDir: string
  /** A folder with `bridge-mcp` linked to this program, as npm's global bin folder holds it. */
  let aliasDir: string
  const configDirs: string[] = []

  beforeAll(() => {
    bins = mkdtempSync(join(tmpdir(), 'bridge-shadow-'))
    strangerDir = join(bins, 'sbin')
    aliasDir = join(bins, 'npm-bin')
    mkdirSync(strangerDir)
    mkdirSync(aliasDir)
    writeFileSync(
      join(strangerDir, 'bridge'),
      `#!/bin/sh\necho "Object \\"$1\\" ${STRANGER_SAYS.replace(/"/g, '\\"')}." >&2\nexit 255\n`,
      { mode: 0o755 },
    )
    symlinkSync(CLI_JS, join(aliasDir, 'bridge-mcp'))
  })
  afterAll(async () => {
    for (const dir of configDirs) {
      await runCommand(process.execPath, [CLI_JS, 'stop'], daemonEnv(dir, 'node'), TIMEOUT_MS)
      rmSync(dir, { recursive: true, force: true })
    }
    rmSync(bins, { recursive: true, force: true })
  })

  /** The environment of a person whose PATH is `dirs` then the system's (without the tests' link). */
  const personEnv = (configDir: string, dirs: string[]) => {
    const system = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== bridgeBinDir())
    return daemonEnv(configDir, 'node', { PATH: [...dirs, ...system].join(delimiter), PORT: undefined })
  }
  /** Commands quoted in backticks that start with `prefix`, without placeholders. */
  const quotedCommands = (text: string, prefix: string) =>
    [...text.matchAll(/`([^`]+)`/g)]
      .map((m) => m[1] ?? '')
      .filter((c) => c.startsWith(`${prefix} `) && !/[<>|]/.test(c))
  const startInBackground = async (env: NodeJS.ProcessEnv) => {
    const result = await runCommand(
      process.execPath,
      [CLI_JS, 'start', '--background', '--port', '0'],
      env,
      TIMEOUT_MS,
    )
    expect(result.code, result.stderr).toBe(0)
    return result.stdout
  }
  const pasted = (command: string, env: NodeJS.ProcessEnv) =>
    runCommand('sh', ['-c', command], env, TIMEOUT_MS)

  it('says in the banner and in doctor to run bridge-mcp, and the commands it prints work as printed', async () => {
    const configDir = tempConfigDir()
    configDirs.push(configDir)
    const env = personEnv(configDir, [strangerDir, aliasDir])
    const banner = await startInBackground(env)
    expect(banner).toContain(
      `Note: \`bridge\` on your PATH is ${join(strangerDir, 'bridge')}, another program (iproute2's bridge on Debian and Ubuntu), not bridge. Run bridge as \`bridge-mcp\` (the same program), e.g. \`bridge-mcp status\`; or put ${aliasDir} before ${strangerDir} in PATH.`,
    )
    expect(banner).toContain('`bridge-mcp client add <name> --for claude-code')
    expect(banner).not.toMatch(/`bridge /)
    // The notice comes first, before any command to paste; the banner ends with the one that turns on
    // the core browser tools (run below with the others, as printed).
    const setup = banner.slice(banner.indexOf('\n\n'))
    expect(setup.trim().startsWith('Note: `bridge` on your PATH')).toBe(true)
    expect(banner.trim().endsWith('`bridge-mcp config set plugin-permission.browser ask`')).toBe(true)

    const port = (
      JSON.parse(readFileSync(join(configDir, 'extension', 'server.json'), 'utf8')) as { port: number }
    ).port
    const withPort = { ...env, BRIDGE_PORT: String(port) }
    const doctor = await runCommand(process.execPath, [CLI_JS, 'doctor'], withPort, TIMEOUT_MS)
    expect(doctor.stdout).toContain(
      `! \`bridge\` on your PATH is ${join(strangerDir, 'bridge')}, another program (iproute2's bridge on Debian and Ubuntu), not bridge.`,
    )
    expect(doctor.stdout).toContain(
      `    Run bridge as \`bridge-mcp\` (the same program), e.g. \`bridge-mcp status\``,
    )

    const commands = [...quotedCommands(banner, 'bridge-mcp'), ...quotedCommands(doctor.stdout, 'bridge-mcp')]
    expect(commands).toContain('bridge-mcp status')
    for (const command of new Set(commands)) {
      const result = await pasted(command, withPort)
      expect(result.stderr, command).not.toContain(STRANGER_SAYS)
      expect(result.code, `${command}: ${result.stderr}`).toBe(0)
    }
    // What the person would have typed without the notice runs the other program.
    expect((await pasted('bridge status', withPort)).stderr).toContain(STRANGER_SAYS)
  })

  it('spells out the full path when no name on PATH is this program', async () => {
    const configDir = tempConfigDir()
    configDirs.push(configDir)
    const env = personEnv(configDir, [strangerDir])
    const banner = await startInBackground(env)
    expect(banner).toContain(`Run bridge as \`${CLI_JS}\`, e.g. \`${CLI_JS} status\``)
    expect(banner).toContain('`npm install -g @bridge-mcp/bridge`')
    const port = (
      JSON.parse(readFileSync(join(configDir, 'extension', 'server.json'), 'utf8')) as { port: number }
    ).port
    const commands = quotedCommands(banner, CLI_JS)
    expect(commands.length).toBeGreaterThan(0)
    for (const command of new Set(commands)) {
      const result = await pasted(command, { ...env, BRIDGE_PORT: String(port) })
      expect(result.code, `${command}: ${result.stderr}`).toBe(0)
    }
  })

  it('says nothing when bridge on PATH is this program, and doctor passes the check', async () => {
    const configDir = tempConfigDir()
    const env = personEnv(configDir, [bridgeBinDir(), strangerDir])
    try {
      const doctor = await runCommand(process.execPath, [CLI_JS, 'doctor'], env, TIMEOUT_MS)
      expect(doctor.stdout).toContain('✓ `bridge` on PATH is this program')
      expect(doctor.stdout).not.toContain('another program')
    } finally {
      rmSync(configDir, { recursive: true, force: true })
    }
  })
})

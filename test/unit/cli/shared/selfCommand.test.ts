import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  selfCommand,
  shadowNotice,
  shellWord,
  withRunnableCommands,
} from '../../../../cli/shared/selfCommand'

describe('selfCommand', () => {
  let root: string
  let self: string
  const dir = (name: string) => join(root, name)

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'bridge-self-'))
    for (const name of ['pkg', 'npm-bin', 'sbin', 'mine', '_npx/abc/node_modules/.bin'])
      mkdirSync(dir(name), { recursive: true })
    self = join(dir('pkg'), 'bridge.js')
    writeFileSync(self, '#!/usr/bin/env node\n', { mode: 0o755 })
    writeFileSync(join(dir('sbin'), 'bridge'), '#!/bin/sh\n', { mode: 0o755 })
    symlinkSync(self, join(dir('npm-bin'), 'bridge-mcp'))
    symlinkSync(self, join(dir('mine'), 'bridge'))
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  const path = (...names: string[]) => ({ PATH: names.map(dir).join(delimiter) })

  it('is `bridge` when PATH finds this program under that name first', () => {
    expect(selfCommand(self, path('mine', 'sbin'))).toEqual({ command: 'bridge', via: 'path' })
  })

  it('is `bridge-mcp` when another bridge comes first, naming it and the folder to put first', () => {
    const found = selfCommand(self, path('sbin', 'npm-bin'))
    expect(found).toEqual({
      command: 'bridge-mcp',
      via: 'alias',
      aliasDir: dir('npm-bin'),
      shadowedBy: join(dir('sbin'), 'bridge'),
    })
    expect(shadowNotice(found)).toBe(
      `\`bridge\` on your PATH is ${join(dir('sbin'), 'bridge')}, another program (iproute2's bridge on Debian and Ubuntu), not bridge. Run bridge as \`bridge-mcp\` (the same program), e.g. \`bridge-mcp status\`; or put ${dir('npm-bin')} before ${dir('sbin')} in PATH.`,
    )
  })

  it('is the full path when no name on PATH is this program, quoted for the shell when it must be', () => {
    expect(selfCommand(self, path('sbin'))).toMatchObject({ command: self, via: 'direct' })
    const spaced = join(dir('pkg'), 'my bridge.js')
    writeFileSync(spaced, '', { mode: 0o644 })
    expect(selfCommand(spaced, path('sbin')).command).toBe(`node '${spaced}'`)
  })

  it('is the npx command when it runs from npx', () => {
    const cached = join(dir('_npx/abc/node_modules'), 'bridge.js')
    writeFileSync(cached, '', { mode: 0o755 })
    symlinkSync(cached, join(dir('_npx/abc/node_modules/.bin'), 'bridge'))
    expect(selfCommand(cached, path('_npx/abc/node_modules/.bin', 'sbin'))).toEqual({
      command: 'npx -y @bridge-mcp/bridge',
      via: 'npx',
    })
  })
})

describe('withRunnableCommands', () => {
  it('rewrites each quoted bridge command, and nothing else', () => {
    const self = { command: 'bridge-mcp', via: 'alias' } as const
    expect(
      withRunnableCommands(
        'run `bridge start --show-config`, then `bridge client add <name>`; `bridge-plugin build`, `bridge` and bridge stay',
        self,
      ),
    ).toBe(
      'run `bridge-mcp start --show-config`, then `bridge-mcp client add <name>`; `bridge-plugin build`, `bridge` and bridge stay',
    )
  })

  it('leaves text alone when bridge is this program', () => {
    expect(withRunnableCommands('`bridge status`', { command: 'bridge', via: 'path' })).toBe(
      '`bridge status`',
    )
  })
})

describe('shellWord', () => {
  it('quotes what a shell would split or expand', () => {
    expect(shellWord('/usr/lib/node_modules/@bridge-mcp/bridge/dist/cli/bridge.js')).toBe(
      '/usr/lib/node_modules/@bridge-mcp/bridge/dist/cli/bridge.js',
    )
    expect(shellWord("/home/o'neil/my bridge")).toBe("'/home/o'\\''neil/my bridge'")
  })
})

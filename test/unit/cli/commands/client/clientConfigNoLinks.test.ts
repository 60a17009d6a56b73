// On a filesystem without hard links (FAT, some network shares: `link` answers EPERM), replaceIfUnchanged
// still writes the file, still keeps a program's save made before bridge took the file, and never
// leaves the file under its taken name.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import type * as Fs from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { replaceIfUnchanged } from '../../../../../cli/commands/client/clientConfigFile'
import { clientFolders, readStat } from './clientFolder'

vi.mock('node:fs', async (original) => {
  const fs = await original<typeof Fs>()
  const linkSync = () => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' })
  }
  return { ...fs, default: { ...fs, linkSync }, linkSync }
})

describe('replaceIfUnchanged where the filesystem has no hard links', () => {
  const fileIn = clientFolders()

  it('replaces the file read and creates a missing one', () => {
    const { dir, file } = fileIn()
    writeFileSync(file, 'old')
    expect(replaceIfUnchanged(file, readStat(file), 'new', 0o600)).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('new')
    const other = join(dir, 'other.json')
    expect(replaceIfUnchanged(other, readStat(other), 'fresh', 0o600)).toBe(true)
    expect(readFileSync(other, 'utf8')).toBe('fresh')
    expect(readdirSync(dir).sort()).toEqual(['mcp.json', 'other.json'])
  })

  it('puts a file the program rewrote back under its own name', () => {
    const { dir, file } = fileIn()
    writeFileSync(file, 'first')
    const read = readStat(file)
    writeFileSync(file, 'the program’s save')
    expect(replaceIfUnchanged(file, read, 'ours', 0o600)).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('the program’s save')
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })
})

// replaceIfUnchanged puts bridge's merge in place only over the very file it read: a program that saved
// its file meanwhile (in place or by a rename) keeps its version, and nothing is left beside the file.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readOwnFile, replaceIfUnchanged } from '../../../../../cli/commands/client/clientConfigFile'

describe('replaceIfUnchanged', () => {
  const dirs: string[] = []
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-client-file-'))
    dirs.push(dir)
    return dir
  }
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  const readStat = (file: string) => {
    const read = readOwnFile(file)
    if (!read.ok) throw new Error(read.message)
    return read.stat
  }

  it('replaces the file read, with mode 0600, leaving nothing beside it', () => {
    const dir = folder()
    const file = join(dir, 'mcp.json')
    writeFileSync(file, '{"a":1}\n', { mode: 0o644 })
    expect(replaceIfUnchanged(file, readStat(file), '{"a":2}\n', 0o600)).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n')
    expect(lstatSync(file).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })

  it('creates the file when there was none and there still is none', () => {
    const dir = folder()
    const file = join(dir, 'mcp.json')
    expect(replaceIfUnchanged(file, readStat(file), '{}\n', 0o600)).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('{}\n')
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })

  it('keeps a file the program created after bridge found none', () => {
    const dir = folder()
    const file = join(dir, 'mcp.json')
    const read = readStat(file)
    writeFileSync(file, 'theirs')
    expect(replaceIfUnchanged(file, read, 'ours', 0o600)).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('theirs')
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })

  it('keeps a file the program rewrote in place after bridge read it', () => {
    const dir = folder()
    const file = join(dir, 'mcp.json')
    writeFileSync(file, 'first')
    const read = readStat(file)
    writeFileSync(file, 'second save')
    expect(replaceIfUnchanged(file, read, 'ours', 0o600)).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('second save')
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })

  it('keeps a file the program replaced by a rename after bridge read it', () => {
    const dir = folder()
    const file = join(dir, 'mcp.json')
    writeFileSync(file, 'first')
    const read = readStat(file)
    writeFileSync(join(dir, 'next'), 'first') // same bytes, another file
    renameSync(join(dir, 'next'), file)
    expect(replaceIfUnchanged(file, read, 'ours', 0o600)).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('first')
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })

  it('writes nothing when the program removed the file after bridge read it', () => {
    const dir = folder()
    const file = join(dir, 'mcp.json')
    writeFileSync(file, 'first')
    const read = readStat(file)
    rmSync(file)
    expect(replaceIfUnchanged(file, read, 'ours', 0o600)).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })
})

// replaceIfUnchanged puts bridge's merge in place only over the very file it read: a program that saved
// its file meanwhile (in place, by a rename, or by removing it) keeps its version, and nothing is left
// beside the file.
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { replaceIfUnchanged } from '../../../../../cli/commands/client/clientConfigFile'
import { clientFolders, readStat } from './clientFolder'

describe('replaceIfUnchanged', () => {
  const folder = clientFolders()

  it('replaces the file read, with mode 0600, leaving nothing beside it', () => {
    const { dir, file } = folder()
    writeFileSync(file, '{"a":1}\n', { mode: 0o644 })
    expect(replaceIfUnchanged(file, readStat(file), '{"a":2}\n', 0o600)).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('{"a":2}\n')
    expect(lstatSync(file).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })

  it('creates the file when there was none and there still is none', () => {
    const { dir, file } = folder()
    expect(replaceIfUnchanged(file, readStat(file), '{}\n', 0o600)).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('{}\n')
    expect(readdirSync(dir)).toEqual(['mcp.json'])
  })

  // What the program did after bridge read its file, and what must be there afterwards.
  it.each([
    {
      after: 'created the file bridge found missing',
      before: undefined,
      program: (file: string) => writeFileSync(file, 'theirs'),
      left: 'theirs',
    },
    {
      after: 'rewrote the file in place',
      before: 'first',
      program: (file: string) => writeFileSync(file, 'second save'),
      left: 'second save',
    },
    {
      after: 'replaced the file by a rename (same bytes, another file)',
      before: 'first',
      program: (file: string) => {
        writeFileSync(`${file}.next`, 'first')
        renameSync(`${file}.next`, file)
      },
      left: 'first',
    },
    { after: 'removed the file', before: 'first', program: (file: string) => rmSync(file), left: undefined },
  ])('keeps the program’s state when it $after', ({ before, program, left }) => {
    const { dir, file } = folder()
    if (before !== undefined) writeFileSync(file, before)
    const read = readStat(file)
    program(file)
    expect(replaceIfUnchanged(file, read, 'ours', 0o600)).toBe(false)
    if (left === undefined) expect(readdirSync(dir)).toEqual([])
    else {
      expect(readFileSync(file, 'utf8')).toBe(left)
      expect(readdirSync(dir)).toEqual(['mcp.json'])
    }
  })
})

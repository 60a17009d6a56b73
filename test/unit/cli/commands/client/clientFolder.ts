// A throw-away folder holding a client's mcp.json, and the file's identity as bridge reads it, for the
// tests of replaceIfUnchanged.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { readOwnFile } from '../../../../../cli/commands/client/clientConfigFile'

/** Registers its own clean-up: each test's folders are removed after it. */
export function clientFolders(): () => { dir: string; file: string } {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-client-file-'))
    dirs.push(dir)
    return { dir, file: join(dir, 'mcp.json') }
  }
}

/** What bridge keeps of the file it read (undefined when there is none). */
export function readStat(file: string) {
  const read = readOwnFile(file)
  if (!read.ok) throw new Error(read.message)
  return read.stat
}

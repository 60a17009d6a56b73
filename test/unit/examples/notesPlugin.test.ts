import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { matchesPattern } from '../../../src/sdk/matchPattern'

const root = join(import.meta.dirname, '..', '..', '..')
const pkg = JSON.parse(readFileSync(join(root, 'examples', 'notes-plugin', 'package.json'), 'utf8')) as {
  bridge: { urlPatterns: string[] }
}
const matched = (url: string) => pkg.bridge.urlPatterns.some((pattern) => matchesPattern(pattern, url))

describe('the example notes plugin', () => {
  it("matches the demo site on its own port only, not every local server's tabs", () => {
    expect(matched('http://127.0.0.1:8787/notes')).toBe(true)
    expect(matched('http://localhost:8787/')).toBe(true)
    for (const other of [
      'http://127.0.0.1:3000/',
      'http://localhost:5173/',
      'http://127.0.0.1/',
      'https://127.0.0.1:8787/',
    ])
      expect(matched(other), other).toBe(false)
  })
})

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  addClient,
  clientNameProblem,
  ensureClientsFile,
  readClients,
  removeClient,
} from '../../../src/config/clients'
import { isBridgeError } from '../../../src/errors'
import { checkExtensionOrigin, matchClientToken } from '../../../src/http/front'
import { EXTENSION_ORIGIN } from '../../../src/protocol/constants'

const dirs: string[] = []
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-clients-'))
  dirs.push(dir)
  return join(dir, 'clients.json')
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('clients.json', () => {
  it('first run creates the default client with a 256-bit token, mode 0600; later runs leave the file alone', () => {
    const file = tempFile()
    const first = ensureClientsFile(file)
    expect(first.created).toMatchObject({ name: 'default', token: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(removeClient(file, 'default')).toBe(true)
    // A user who removed `default` does not get it back.
    expect(ensureClientsFile(file).created).toBeNull()
    expect(readClients(file)).toEqual([])
  })

  it('adds clients with distinct tokens and refuses a taken, malformed or reserved name', () => {
    const file = tempFile()
    const a = addClient(file, 'agent-a')
    const b = addClient(file, 'b2')
    expect(a.token).not.toBe(b.token)
    expect(readClients(file).map((c) => c.name)).toEqual(['agent-a', 'b2'])
    expect(() => addClient(file, 'agent-a')).toThrow(/already exists/)
    for (const name of ['cli', 'extension', 'browser', 'Agent', '-a', 'a_b', 'x'.repeat(33), ''])
      expect(() => addClient(file, name)).toThrow()
    expect(clientNameProblem('x'.repeat(32))).toBeNull()
    expect(readClients(file)).toHaveLength(2)
  })

  it('removing an unknown client changes nothing', () => {
    const file = tempFile()
    addClient(file, 'one')
    const before = readFileSync(file, 'utf8')
    expect(removeClient(file, 'two')).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe(before)
  })

  it('reports a broken file by path, never by content', () => {
    const file = tempFile()
    writeFileSync(
      file,
      JSON.stringify({ clients: [{ name: 'x', token: 'short-secret-value', createdAt: '' }] }),
    )
    let error: unknown
    try {
      readClients(file)
    } catch (e) {
      error = e
    }
    expect(isBridgeError(error)).toBe(true)
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).not.toContain('short-secret-value')
  })
})

describe('matchClientToken', () => {
  const clients = [
    { name: 'one', token: '1'.repeat(64) },
    { name: 'two', token: '2'.repeat(64) },
  ]
  it('names the client whose token it is, and nobody for anything else', () => {
    expect(matchClientToken('2'.repeat(64), clients)).toBe('two')
    expect(matchClientToken('1'.repeat(64), clients)).toBe('one')
    expect(matchClientToken('1'.repeat(63), clients)).toBeNull()
    expect(matchClientToken('', clients)).toBeNull()
    expect(matchClientToken('1'.repeat(64), [])).toBeNull()
  })
})

describe('checkExtensionOrigin', () => {
  it('lets only the pinned extension Origin through to /ws', () => {
    expect(
      checkExtensionOrigin({ header: (name) => (name === 'origin' ? EXTENSION_ORIGIN : null) }),
    ).toBeNull()
    for (const init of [
      {} as Record<string, string>,
      { origin: 'chrome-extension://otherextensionidaaaaaaaaaaaaaaaa' },
      { origin: 'null' },
    ]) {
      const res = checkExtensionOrigin({ header: (name) => init[name] ?? null })
      expect(res?.status).toBe(403)
      expect(JSON.parse(res?.body as string)).toEqual({
        error: { code: 'forbidden_origin', message: '/ws accepts only the bridge extension' },
      })
    }
  })
})

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { NPM_ROOT_CACHE_MS, npmGlobalRoot } from '../../../src/plugins/npmRoot'
import { tempDir } from '../../fixtures/plugins'

const tmp = tempDir('npmroot')
afterAll(() => tmp.cleanup())

/** A stand-in `npm` on PATH that prints a folder and counts how often it ran. */
function fakeNpm(name: string, script: string): NodeJS.ProcessEnv {
  const bin = join(tmp.dir, name)
  mkdirSync(bin)
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\n${script}\n`)
  chmodSync(join(bin, 'npm'), 0o755)
  return { PATH: `${bin}:/usr/bin:/bin`, HOME: tmp.dir }
}

describe('npmGlobalRoot', () => {
  it('asks npm once and reuses the answer for a while', async () => {
    const calls = join(tmp.dir, 'calls')
    writeFileSync(calls, '')
    const env = fakeNpm(
      'counting',
      `echo run >> ${calls}\necho "npm warn noise" >&2\necho /opt/global/lib/node_modules`,
    )
    expect(await npmGlobalRoot(env, 1_000)).toBe('/opt/global/lib/node_modules')
    expect(await npmGlobalRoot(env, 2_000)).toBe('/opt/global/lib/node_modules')
    expect(readFileSync(calls, 'utf8')).toBe('run\n')
    await npmGlobalRoot(env, 1_000 + NPM_ROOT_CACHE_MS)
    expect(readFileSync(calls, 'utf8')).toBe('run\nrun\n')
  })

  it('asks again for another npm prefix', async () => {
    const env = fakeNpm('prefixed', 'echo "$NPM_CONFIG_PREFIX/lib/node_modules"')
    expect(await npmGlobalRoot({ ...env, NPM_CONFIG_PREFIX: '/a' })).toBe('/a/lib/node_modules')
    expect(await npmGlobalRoot({ ...env, NPM_CONFIG_PREFIX: '/b' })).toBe('/b/lib/node_modules')
  })

  it('rejects when npm fails, and does not remember the failure', async () => {
    const flag = join(tmp.dir, 'fail')
    writeFileSync(flag, '1')
    const env = fakeNpm('flaky', `if [ -s ${flag} ]; then echo "npm is broken" >&2; exit 1; fi\necho /ok`)
    await expect(npmGlobalRoot(env)).rejects.toThrow('npm root -g failed: npm is broken')
    writeFileSync(flag, '')
    expect(await npmGlobalRoot(env)).toBe('/ok')
  })
})

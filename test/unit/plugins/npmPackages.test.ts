import { describe, expect, it } from 'vitest'
import { BridgeError } from '../../../src/errors'
import {
  compareVersions,
  isPluginPackageName,
  pluginPackageCandidates,
} from '../../../src/plugins/npmPackages'

describe('pluginPackageCandidates', () => {
  it('tries the official scoped package first, then the unscoped one, for a shorthand', () => {
    expect(pluginPackageCandidates('notes')).toEqual([
      '@bridge-mcp/bridge-plugin-notes',
      'bridge-plugin-notes',
    ])
    expect(pluginPackageCandidates(' my-site ')).toEqual([
      '@bridge-mcp/bridge-plugin-my-site',
      'bridge-plugin-my-site',
    ])
  })

  it('takes a full package name as it is', () => {
    expect(pluginPackageCandidates('bridge-plugin-notes')).toEqual(['bridge-plugin-notes'])
    expect(pluginPackageCandidates('@acme/bridge-plugin-crm')).toEqual(['@acme/bridge-plugin-crm'])
  })

  it.each([
    '',
    '--global',
    '-g',
    '../etc',
    '/etc/passwd',
    'Notes',
    'notes--x',
    'notes@1.0.0',
    'a b',
    '@acme/left-pad',
    '@acme/bridge-plugin-',
    'bridge-plugin-../x',
    'x'.repeat(101),
  ])('refuses %j with plugin_name_invalid, before npm sees it', (name) => {
    let thrown: unknown
    try {
      pluginPackageCandidates(name)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(BridgeError)
    expect((thrown as BridgeError).code).toBe('plugin_name_invalid')
  })
})

describe('isPluginPackageName', () => {
  it('accepts bridge-plugin-* and @scope/bridge-plugin-* only', () => {
    expect(isPluginPackageName('bridge-plugin-notes')).toBe(true)
    expect(isPluginPackageName('@bridge-mcp/bridge-plugin-notes')).toBe(true)
    expect(isPluginPackageName('notes-helper')).toBe(false)
    expect(isPluginPackageName('@bridge-mcp/notes')).toBe(false)
    expect(isPluginPackageName('bridge-plugin-Notes')).toBe(false)
  })
})

describe('compareVersions', () => {
  it.each([
    ['1.0.0', '1.0.0', 0],
    ['1.0.1', '1.0.0', 1],
    ['1.2.0', '1.10.0', -1],
    ['2.0.0', '10.0.0', -1],
    ['1.0.0-beta.1', '1.0.0', -1],
    ['1.0.0', '1.0.0-rc.1', 1],
    ['1.0.0-alpha', '1.0.0-beta', -1],
    ['1.0', '1.0.0', 0],
    ['1.0.0-beta.10', '1.0.0-beta.9', 1],
    ['1.0.0-beta.9', '1.0.0-beta.10', -1],
    ['1.0.0-beta', '1.0.0-beta.1', -1],
    ['1.0.0-1', '1.0.0-alpha', -1],
    ['1.0.0-rc.1', '1.0.0-beta.11', 1],
    ['1.0.0-beta-2', '1.0.0-beta-10', 1],
    ['1.0.0+build.2', '1.0.0+build.1', 0],
  ])('%s vs %s is %d', (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected)
  })
})

import { describe, expect, it } from 'vitest'
import {
  isReviewed,
  reviewChange,
  allowAlwaysPersists,
  resolvePermission,
  withPluginPermission,
  withReviewedVersion,
  withToolPermission,
  withBrowserGroup,
  type PermissionsConfig,
  type PluginBuildIdentity,
} from '../../../src/config/permissions'
import { BROWSER_TOOL_NAMES, CORE_BROWSER_TOOLS } from '../../../src/tools'

const build = (version: string, more: Partial<PluginBuildIdentity> = {}): PluginBuildIdentity => ({
  packageName: '@bridge-mcp/bridge-plugin-notes',
  version,
  adapterHash: 'a'.repeat(64),
  ...more,
})
/** What a review of `build(version)` records. */
const reviewed = (version: string) => ({
  reviewedVersion: version,
  reviewedPackage: '@bridge-mcp/bridge-plugin-notes',
  reviewedAdapterHash: 'a'.repeat(64),
})
const base = { plugin: 'notes', tool: 'list_notes', installed: build('1.0.0'), skipPermissions: false }

describe('resolvePermission', () => {
  it('is off when nothing is configured', () => {
    expect(resolvePermission({ ...base, permissions: {} })).toBe('off')
  })

  it('uses the plugin default, and a per-tool override before it', () => {
    const permissions: PermissionsConfig = { notes: { permission: 'auto', tools: { delete_note: 'ask' } } }
    expect(resolvePermission({ ...base, permissions })).toBe('auto')
    expect(resolvePermission({ ...base, permissions, tool: 'delete_note' })).toBe('ask')
  })

  it('lets a per-tool off override an auto plugin default', () => {
    const permissions: PermissionsConfig = { notes: { permission: 'auto', tools: { list_notes: 'off' } } }
    expect(resolvePermission({ ...base, permissions })).toBe('off')
  })

  it('runs ask tools as auto under the skip flag but keeps off tools off', () => {
    const permissions: PermissionsConfig = { notes: { permission: 'ask', tools: { wipe: 'off' } } }
    expect(resolvePermission({ ...base, permissions, skipPermissions: true })).toBe('auto')
    expect(resolvePermission({ ...base, permissions, tool: 'wipe', skipPermissions: true })).toBe('off')
    expect(resolvePermission({ ...base, permissions: {}, skipPermissions: true })).toBe('off')
  })

  it('turns every tool off when the reviewed version differs from the installed one, even with the skip flag', () => {
    const permissions: PermissionsConfig = { notes: { permission: 'auto', ...reviewed('0.9.0') } }
    expect(resolvePermission({ ...base, permissions })).toBe('off')
    expect(resolvePermission({ ...base, permissions, skipPermissions: true })).toBe('off')
    expect(isReviewed(permissions, 'notes', build('1.0.0'))).toBe(false)
    expect(isReviewed(permissions, 'notes', build('0.9.0'))).toBe(true)
  })

  it('needs a review when another package or another adapter build runs under the reviewed version', () => {
    const permissions: PermissionsConfig = { notes: { permission: 'auto', ...reviewed('1.0.0') } }
    expect(resolvePermission({ ...base, permissions })).toBe('auto')
    const swapped = build('1.0.0', { adapterHash: 'b'.repeat(64) })
    expect(isReviewed(permissions, 'notes', swapped)).toBe(false)
    expect(resolvePermission({ ...base, permissions, installed: swapped })).toBe('off')
    const other = build('1.0.0', { packageName: '@aaa/bridge-plugin-notes' })
    expect(resolvePermission({ ...base, permissions, installed: other })).toBe('off')
  })

  it('keeps the review of a local plugin rebuilt in the reviewed folder, not in another folder nor at another version', () => {
    const local = (more: Partial<PluginBuildIdentity> = {}) =>
      build('1.0.0', { source: 'local', path: '/home/me/notes', ...more })
    const permissions = withPluginPermission({}, 'notes', 'auto', local())
    expect(permissions.notes).toMatchObject({ reviewedPath: '/home/me/notes' })
    const rebuilt = local({ adapterHash: 'b'.repeat(64) })
    expect(reviewChange(permissions, 'notes', rebuilt)).toBeUndefined()
    expect(resolvePermission({ ...base, permissions, installed: rebuilt })).toBe('auto')
    expect(reviewChange(permissions, 'notes', local({ adapterHash: 'b'.repeat(64), path: '/tmp/x' }))).toBe(
      'adapter',
    )
    expect(reviewChange(permissions, 'notes', local({ version: '1.1.0' }))).toBe('version')
    expect(reviewChange(permissions, 'notes', local({ packageName: 'bridge-plugin-notes' }))).toBe('package')
  })

  it('does not let an npm package review cover a local folder with another adapter', () => {
    const permissions = withPluginPermission(
      {},
      'notes',
      'auto',
      build('1.0.0', { source: 'npm', path: '/g/n' }),
    )
    expect(permissions.notes?.reviewedPath).toBeUndefined()
    const local = build('1.0.0', { source: 'local', path: '/g/n', adapterHash: 'b'.repeat(64) })
    expect(reviewChange(permissions, 'notes', local)).toBe('adapter')
    expect(reviewChange(permissions, 'notes', build('1.0.0', { adapterHash: 'c'.repeat(64) }))).toBe(
      'adapter',
    )
  })

  it('counts an entry that recorded only reviewedVersion (written before reviews bound the build) as review needed', () => {
    const permissions: PermissionsConfig = { notes: { permission: 'auto', reviewedVersion: '1.0.0' } }
    expect(isReviewed(permissions, 'notes', build('1.0.0'))).toBe(false)
    expect(reviewChange(permissions, 'notes', build('1.0.0'))).toBe('unrecorded')
    expect(resolvePermission({ ...base, permissions })).toBe('off')
  })

  it('uses configured permissions as they are when no reviewed version is recorded', () => {
    expect(resolvePermission({ ...base, permissions: { notes: { permission: 'ask' } } })).toBe('ask')
  })

  it('resolves built-in tools under the browser pseudo-plugin by full name', () => {
    const permissions: PermissionsConfig = {
      browser: { permission: 'ask', tools: { browser_screenshot: 'auto' } },
    }
    const q = { permissions, plugin: 'browser', skipPermissions: false }
    expect(resolvePermission({ ...q, tool: 'browser_screenshot' })).toBe('auto')
    expect(resolvePermission({ ...q, tool: 'browser_navigate' })).toBe('ask')
  })

  it('ignores inherited object keys in tool names', () => {
    expect(resolvePermission({ ...base, permissions: { notes: { tools: {} } }, tool: 'constructor' })).toBe(
      'off',
    )
    expect(resolvePermission({ ...base, permissions: {}, plugin: '__proto__' })).toBe('off')
  })
})

describe('permission changes', () => {
  it('records the installed version as reviewed when a tool is set to ask or auto', () => {
    const before: PermissionsConfig = { notes: { permission: 'off', reviewedVersion: '0.9.0' } }
    const after = withToolPermission(before, 'notes', 'list_notes', 'auto', build('1.0.0'))
    expect(after).toEqual({
      notes: { permission: 'off', ...reviewed('1.0.0'), tools: { list_notes: 'auto' } },
    })
    expect(resolvePermission({ ...base, permissions: after })).toBe('auto')
    expect(before.notes?.reviewedVersion).toBe('0.9.0')
  })

  it('does not record a review when a permission is set to off', () => {
    const after = withPluginPermission(
      { notes: { reviewedVersion: '0.9.0' } },
      'notes',
      'off',
      build('1.0.0'),
    )
    expect(after).toEqual({ notes: { reviewedVersion: '0.9.0', permission: 'off' } })
  })

  it('sets a plugin default and can mark a version reviewed', () => {
    const after = withPluginPermission({}, 'notes', 'ask', build('1.0.0'))
    expect(after).toEqual({ notes: { permission: 'ask', ...reviewed('1.0.0') } })
    expect(
      withReviewedVersion(
        { notes: { permission: 'ask', ...reviewed('1.0.0') } },
        'notes',
        '2.0.0',
        build('2.0.0'),
      ),
    ).toEqual({ notes: { permission: 'ask', ...reviewed('2.0.0') } })
    // A version that is not the installed one binds no build.
    expect(
      withReviewedVersion(
        { notes: { permission: 'ask', ...reviewed('1.0.0') } },
        'notes',
        '3.0.0',
        build('2.0.0'),
      ),
    ).toEqual({ notes: { permission: 'ask', reviewedVersion: '3.0.0' } })
  })

  it('never records a reviewed version for the browser pseudo-plugin', () => {
    expect(withPluginPermission({}, 'browser', 'auto', build('0.1.0'))).toEqual({
      browser: { permission: 'auto' },
    })
  })
})

describe('built-in tools that keep the browser default at a distance', () => {
  const query = (
    permissions: Record<
      string,
      {
        permission?: 'off' | 'ask' | 'auto'
        tools?: Record<string, 'off' | 'ask' | 'auto'>
        groups?: string[]
      }
    >,
    tool: string,
  ) => resolvePermission({ permissions, plugin: 'browser', tool, skipPermissions: false })

  it('leaves browser_evaluate off whatever the browser default, until the user sets that tool', () => {
    for (const permission of ['ask', 'auto'] as const)
      expect(query({ browser: { permission } }, 'browser_evaluate')).toBe('off')
    expect(
      query({ browser: { permission: 'auto', tools: { browser_evaluate: 'ask' } } }, 'browser_evaluate'),
    ).toBe('ask')
    expect(query({ browser: { tools: { browser_evaluate: 'auto' } } }, 'browser_evaluate')).toBe('auto')
  })

  it('caps browser_clear_site_data at ask under an auto default, unless set to auto itself', () => {
    const storage = ['storage']
    expect(query({ browser: { permission: 'auto', groups: storage } }, 'browser_clear_site_data')).toBe('ask')
    expect(query({ browser: { permission: 'ask', groups: storage } }, 'browser_clear_site_data')).toBe('ask')
    expect(
      query(
        { browser: { permission: 'auto', tools: { browser_clear_site_data: 'auto' } } },
        'browser_clear_site_data',
      ),
    ).toBe('auto')
    expect(query({ browser: { permission: 'auto' } }, 'browser_snapshot')).toBe('auto')
  })

  it('reaches the core tools only, and the groups opted into (or all); a tool set by itself needs no group', () => {
    const auto = { browser: { permission: 'auto' as const } }
    for (const tool of CORE_BROWSER_TOOLS) expect(query(auto, tool)).toBe('auto')
    expect(query(auto, 'browser_route_add')).toBe('off')
    expect(query(auto, 'browser_get_cookies')).toBe('off')
    expect(query({ browser: { permission: 'ask', groups: ['network'] } }, 'browser_route_add')).toBe('ask')
    expect(query({ browser: { permission: 'ask', groups: ['network'] } }, 'browser_get_cookies')).toBe('off')
    expect(query({ browser: { permission: 'auto', groups: ['all'] } }, 'browser_get_cookies')).toBe('auto')
    expect(
      query(
        { browser: { permission: 'auto', tools: { browser_get_cookies: 'ask' } } },
        'browser_get_cookies',
      ),
    ).toBe('ask')
    // A core tool turned off by itself stays off.
    expect(query({ browser: { permission: 'auto', tools: { browser_click: 'off' } } }, 'browser_click')).toBe(
      'off',
    )
    // `all` does not lift browser_evaluate's own cap.
    expect(query({ browser: { permission: 'auto', groups: ['all'] } }, 'browser_evaluate')).toBe('off')
  })

  it('adds and removes groups in the browser entry without touching its other settings', () => {
    const start: PermissionsConfig = { browser: { permission: 'ask', tools: { browser_click: 'auto' } } }
    const added = withBrowserGroup(withBrowserGroup(start, 'network', true), 'storage', true)
    expect(added.browser).toEqual({
      permission: 'ask',
      tools: { browser_click: 'auto' },
      groups: ['network', 'storage'],
    })
    expect(withBrowserGroup(added, 'network', true)).toBe(added)
    expect(withBrowserGroup(withBrowserGroup(added, 'network', false), 'storage', false).browser).toEqual({
      permission: 'ask',
      tools: { browser_click: 'auto' },
    })
  })

  it('has a core set of real tool names, smaller than 25', () => {
    for (const tool of CORE_BROWSER_TOOLS) expect(BROWSER_TOOL_NAMES).toContain(tool)
    expect(CORE_BROWSER_TOOLS.size).toBeLessThan(25)
  })

  it('never lets "allow always" turn browser_evaluate to auto', () => {
    expect(allowAlwaysPersists('browser', 'browser_evaluate')).toBe(false)
    expect(allowAlwaysPersists('browser', 'browser_clear_site_data')).toBe(true)
    expect(allowAlwaysPersists('notes', 'browser_evaluate')).toBe(true)
  })
})

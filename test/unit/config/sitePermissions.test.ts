import { describe, expect, it } from 'vitest'
import {
  enabledSites,
  normalizeOrigin,
  resolveSiteToolPermission,
  withSitePermission,
  withSiteToolPermission,
  type SitesConfig,
} from '../../../src/config/sitePermissions'

const A = 'https://todo.example'
const SEEN = 'a'.repeat(64)
const OTHER = 'b'.repeat(64)
const resolve = (sites: SitesConfig | undefined, declared = SEEN, skipPermissions = false) =>
  resolveSiteToolPermission({ sites, origin: A, tool: 'add', declared, skipPermissions })

describe('sitePermissions', () => {
  it('keeps a site that is not listed off, and does not look at it', () => {
    expect(resolve(undefined).permission).toBe('off')
    expect(enabledSites({ [A]: { permission: 'off' } })).toEqual([])
  })

  it('resolves per tool, then per site, then off', () => {
    const site = withSitePermission(undefined, A, 'ask')
    expect(resolve(site).permission).toBe('ask')
    const tool = withSiteToolPermission(site, A, 'add', 'auto', SEEN)
    expect(resolve(tool)).toEqual({ permission: 'auto', toolPermission: 'auto', changed: false })
  })

  it('puts a tool back to the site default when its declaration changed, until it is set again', () => {
    const sites = withSiteToolPermission(withSitePermission(undefined, A, 'ask'), A, 'add', 'auto', SEEN)
    expect(resolve(sites, OTHER)).toEqual({ permission: 'ask', changed: true })
    expect(resolve(withSiteToolPermission(sites, A, 'add', 'auto', OTHER), OTHER).permission).toBe('auto')
  })

  it('never loosens a tool set off when its declaration changes', () => {
    const sites = withSiteToolPermission(withSitePermission(undefined, A, 'auto'), A, 'add', 'off', undefined)
    expect(resolve(sites, OTHER).permission).toBe('off')
    expect(enabledSites(sites)).toEqual([A])
  })

  it('runs ask as auto with the skip flag, and keeps off off', () => {
    expect(resolve(withSitePermission(undefined, A, 'ask'), SEEN, true).permission).toBe('auto')
    expect(resolve(withSitePermission(undefined, A, 'off'), SEEN, true).permission).toBe('off')
  })

  it('refuses ask or auto for a tool whose declaration was never seen', () => {
    expect(() => withSiteToolPermission(undefined, A, 'add', 'auto', undefined)).toThrow(
      /can only be set off/,
    )
  })

  it('accepts only http(s) origins', () => {
    expect(normalizeOrigin('https://Todo.Example:443/path')).toBe('https://todo.example')
    expect(normalizeOrigin('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080')
    expect(normalizeOrigin('file:///etc/passwd')).toBeUndefined()
    expect(normalizeOrigin('https://user:pw@todo.example')).toBeUndefined()
    expect(normalizeOrigin('todo.example')).toBeUndefined()
  })
})

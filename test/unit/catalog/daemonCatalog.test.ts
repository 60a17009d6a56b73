import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createDaemonCatalog } from '../../../src/catalog/daemonCatalog'
import type { CatalogBrowserTool } from '../../../src/catalog/toolCatalog'
import { defaultConfig, type Config } from '../../../src/config/schema'
import { emptySnapshot } from '../../../src/plugins/registry'
import { createSiteRegistry } from '../../../src/sites/siteRegistry'
import { loadedPlugin, pluginTool } from '../../helpers/catalogFixture'

const notes = loadedPlugin('notes', {
  displayName: 'Notes',
  version: '1.2.0',
  urlPatterns: ['https://notes.example/*'],
  tools: [pluginTool('list_notes', 'List notes', 'Lists')],
})

const pathOf = (input: unknown): string =>
  typeof input === 'object' && input !== null && 'path' in input && typeof input.path === 'string'
    ? input.path
    : ''

/** A built-in tool that reads a file to upload, as browser_upload_file does, before it runs. */
const upload: CatalogBrowserTool = {
  name: 'browser_upload_file',
  displayName: 'Upload a file',
  description: 'Uploads',
  inputSchema: { type: 'object' },
  prepare: (input, context) => context.readUploadFile(pathOf(input), 1024),
}

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The catalog over config.json as a test changes it (`config.now`), with one plugin loaded. */
function daemonCatalog(skip = false) {
  const config: { now: Readonly<Config> } = { now: defaultConfig() }
  const browserTools = [upload]
  const catalog = createDaemonCatalog({
    pluginHost: { snapshot: () => ({ ...emptySnapshot(), plugins: [notes] }) },
    browserTools: () => browserTools,
    config: () => config.now,
    skipPermissions: () => skip,
    siteRegistry: createSiteRegistry({ sites: () => config.now.sites, skipPermissions: () => skip }),
  })
  return { catalog, config }
}

describe('createDaemonCatalog', () => {
  it("lists the plugin host's tools and the built-in tools with the permissions config.json gives them now", () => {
    const { catalog, config } = daemonCatalog()
    config.now = {
      ...config.now,
      permissions: { notes: { permission: 'auto' }, browser: { permission: 'ask' } },
    }
    expect(catalog.get('notes_list_notes')?.permission).toBe('auto')
    expect(catalog.get('browser_upload_file')?.permission).toBe('ask')

    config.now = {
      ...config.now,
      permissions: { notes: { permission: 'off' }, browser: { permission: 'ask' } },
    }
    expect(catalog.get('notes_list_notes')?.permission).toBe('off')
  })

  it('applies the skip flag it is given to every tool that is not off', () => {
    const { catalog, config } = daemonCatalog(true)
    config.now = { ...config.now, permissions: { notes: { permission: 'ask' } } }
    expect(catalog.skipPermissions()).toBe(true)
    expect(catalog.get('notes_list_notes')?.permission).toBe('auto')
  })

  it('lets a built-in tool read a file only from the upload folders config.json allows at the time', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'bridge-uploads-'))
    dirs.push(folder)
    writeFileSync(join(folder, 'report.txt'), 'quarterly numbers')
    const { catalog, config } = daemonCatalog()
    const refused = await catalog.get('browser_upload_file')!.prepare!({ path: join(folder, 'report.txt') })
    expect(refused).toMatchObject({
      ok: false,
      message: expect.stringContaining('no upload folder is allowed'),
    })

    config.now = { ...config.now, uploadFolders: [folder] }
    const read = await catalog.get('browser_upload_file')!.prepare!({ path: join(folder, 'report.txt') })
    expect(read).toMatchObject({ ok: true, value: { name: 'report.txt' } })
  })
})

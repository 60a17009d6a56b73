import { describe, expect, it } from 'vitest'
import { scaffoldPlugin, urlPatternsFor } from '../../../src/authoring/scaffold'

const base = { sdkEntry: '/opt/bridge/src/sdk/index.ts' }

describe('urlPatternsFor', () => {
  it.each([
    ['example.com', ['https://example.com/*', 'https://*.example.com/*']],
    ['https://app.example.com/inbox?x=1', ['https://app.example.com/*', 'https://*.app.example.com/*']],
    ['www.example.com', ['https://www.example.com/*', 'https://*.example.com/*']],
    ['Example.COM', ['https://example.com/*', 'https://*.example.com/*']],
    ['localhost:3000', ['http://localhost:3000/*']],
    ['localhost', ['http://localhost/*']],
    ['http://127.0.0.1:8787/', ['http://127.0.0.1:8787/*']],
    ['127.0.0.1:8790', ['http://127.0.0.1:8790/*']],
    ['[::1]:8080', ['http://[::1]:8080/*']],
    ['example.com:8443', ['https://example.com:8443/*', 'https://*.example.com:8443/*']],
  ])('%s -> %j', (domain, patterns) => {
    expect(urlPatternsFor(domain)).toEqual(patterns)
  })

  it.each(['', 'https://', 'exa mple.com', 'bad_*.com'])('rejects %j', (domain) => {
    expect(() => urlPatternsFor(domain)).toThrow(/is not a domain|does not give a valid match pattern/)
  })
})

describe('scaffoldPlugin', () => {
  it('writes a package whose bridge field and scripts build and test it', () => {
    const s = scaffoldPlugin({ ...base, name: 'my-site', domain: 'my-site.com' })
    expect(s.packageName).toBe('bridge-plugin-my-site')
    expect(Object.keys(s.files).sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'icon.svg',
        'package.json',
        'src/index.ts',
        'test/adapter.test.mjs',
        'tsconfig.json',
      ].sort(),
    )
    expect(JSON.parse(s.files['package.json']!)).toMatchObject({
      name: 'bridge-plugin-my-site',
      version: '0.1.0',
      description: 'bridge plugin for my-site.com',
      bridge: {
        displayName: 'My Site',
        urlPatterns: ['https://my-site.com/*', 'https://*.my-site.com/*'],
        icon: 'icon.svg',
      },
      scripts: {
        build: 'bridge-plugin build',
        typecheck: 'tsc -p .',
        test: 'bridge-plugin build && node --test',
      },
      devDependencies: { typescript: expect.stringMatching(/^~5\./) },
    })
    expect(JSON.parse(s.files['tsconfig.json']!).compilerOptions.paths).toEqual({
      'bridge/sdk': [base.sdkEntry],
    })
    expect(s.files['test/adapter.test.mjs']).toContain(`hello.plugin === 'my-site'`)
  })

  it('takes display name and description, and strips a bridge-plugin- prefix', () => {
    const s = scaffoldPlugin({
      ...base,
      name: 'bridge-plugin-wiki',
      domain: 'wiki.example',
      displayName: 'Team Wiki',
      description: 'Our wiki',
    })
    expect(s.name).toBe('wiki')
    expect(JSON.parse(s.files['package.json']!)).toMatchObject({
      description: 'Our wiki',
      bridge: { displayName: 'Team Wiki' },
    })
    expect(s.files['README.md']).toMatch(/^# Team Wiki\n\nOur wiki\./)
  })

  it.each([
    ['My_Site', /must be lowercase letters and digits/],
    ['browser', /"browser" is reserved/],
    ['-x', /must be lowercase/],
  ])('rejects the name %s', (name, message) => {
    expect(() => scaffoldPlugin({ ...base, name, domain: 'example.com' })).toThrow(message)
  })
})

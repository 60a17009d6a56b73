// Hostile plugin icons, written as an attacker would, against the real sanitizer and real discovery:
// each one is refused with a reason, and a discovered plugin carrying one loads without its icon and
// a discovery warning that says why.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPlugin } from '../../src/authoring/buildPlugin'
import { discoverPlugins } from '../../src/plugins'
import { iconSvgProblem } from '../../src/plugins/iconSvg'
import { copyFixture } from '../fixtures/plugins'

const SVG = 'xmlns="http://www.w3.org/2000/svg"'
const svg = (inner: string, attributes = '') => `<svg ${SVG}${attributes}>${inner}</svg>`

describe('iconSvg sanitizer', () => {
  it('accepts plain SVG icons (shapes, gradients, local references, a harmless style)', () => {
    for (const icon of [
      svg('<path d="M0 0h1"/>'),
      readFileSync(join(__dirname, '../fixtures/plugins/good/icon.svg'), 'utf8'),
      readFileSync(join(__dirname, '../../examples/notes-plugin/icon.svg'), 'utf8'),
      svg(
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><rect width="8" height="8" fill="url(#g)"/><use href="#g"/>',
        ' viewBox="0 0 8 8"',
      ),
      `<?xml version="1.0"?>\n<!-- made by hand -->\n${svg('<style>.a { fill: url(\'#g\'); stroke: red }</style><title>A &amp; B</title><circle class="a" cx="4" cy="4" r="3"/>')}`,
    ])
      expect(iconSvgProblem(icon), icon).toBeUndefined()
  })

  it.each([
    ['a script element', svg('<script>alert(document.cookie)</script>'), 'it contains a <script> element'],
    [
      'a script element in another case',
      svg('<SCRIPT>alert(1)</SCRIPT>'),
      'the element <SCRIPT> is not allowed',
    ],
    ['onload without a space before it', `<svg/onload="alert(1)" ${SVG}/>`, 'is malformed'],
    ['an onload handler', svg('', ' onload="alert(1)"'), 'it has an event handler (onload on <svg>)'],
    [
      'a handler on a shape',
      svg('<rect onmouseover="alert(1)"/>'),
      'it has an event handler (onmouseover on <rect>)',
    ],
    [
      'a javascript: link',
      svg('<a href="javascript:alert(1)"><rect/></a>'),
      'the element <a> is not allowed',
    ],
    [
      'a javascript: use href',
      svg('<use href="javascript:alert(1)"/>'),
      'refers to something outside the icon',
    ],
    [
      'an entity-encoded javascript: href',
      svg('<use xlink:href="jav&#x61;script:alert(1)"/>', ' xmlns:xlink="http://www.w3.org/1999/xlink"'),
      'refers to something outside the icon',
    ],
    [
      'an external use href',
      svg('<use href="https://evil.example/sprite.svg#x"/>'),
      'refers to something outside the icon',
    ],
    [
      'a data: href',
      svg('<use href="data:image/svg+xml;base64,PHN2Zy8+"/>'),
      'refers to something outside the icon',
    ],
    [
      'an image element',
      svg('<image href="https://evil.example/track.png"/>'),
      'the element <image> is not allowed',
    ],
    [
      'a foreignObject',
      svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>'),
      'it contains a <foreignObject> element',
    ],
    ['an iframe', svg('<iframe src="https://evil.example"/>'), 'the element <iframe> is not allowed'],
    [
      'an animation that sets a handler',
      svg('<set attributeName="onmouseover" to="alert(1)"/>'),
      'the element <set> is not allowed',
    ],
    [
      'style @import',
      svg('<style>@import url(https://evil.example/x.css);</style>'),
      'contains an @-rule (such as @import)',
    ],
    [
      'an external url() in a style element',
      svg('<style>rect { fill: url(https://evil.example/p.svg#a) }</style>'),
      'url() other than #id',
    ],
    [
      'an external url() in a style attribute',
      svg('<rect style="fill:url(&quot;https://evil.example/a.svg#b&quot;)"/>'),
      'url() other than #id',
    ],
    [
      'an external url() in a paint attribute',
      svg('<rect fill="url(//evil.example/a#b)"/>'),
      'url() other than #id',
    ],
    [
      'a CSS-escaped url()',
      svg('<style>rect { fill: u\\72l(https://evil.example/a) }</style>'),
      'contains a CSS escape',
    ],
    [
      'a DOCTYPE with an entity',
      `<!DOCTYPE svg [<!ENTITY x "<script>alert(1)</script>">]>${svg('&x;')}`,
      'DOCTYPE',
    ],
    [
      'an external entity',
      `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg('<text>&x;</text>')}`,
      'DOCTYPE',
    ],
    ['an undeclared entity', svg('<text>&x;</text>'), 'it uses the entity &x;'],
    ['a CDATA section', svg('<style><![CDATA[ @import "https://evil.example/x.css"; ]]></style>'), 'CDATA'],
    [
      'a processing instruction',
      `<?xml-stylesheet href="https://evil.example/x.css"?>${svg('')}`,
      'processing instruction',
    ],
    ['markup inside a style element', svg('<style><rect/></style>'), 'a <style> element contains markup'],
    ['an unquoted attribute', '<svg width=8></svg>', 'is not quoted'],
    [
      'a foreign namespace',
      `<svg xmlns="http://www.w3.org/1999/xhtml"><rect/></svg>`,
      'is not the SVG namespace',
    ],
    ['two roots', `${svg('')}${svg('')}`, 'more than one root element'],
    ['no svg root', '<png/>', 'not SVG markup'],
    ['unclosed markup', `<svg ${SVG}><g>`, '<g> is not closed'],
    ['a huge icon', svg(`<path d="${'M0 0'.repeat(9_000)}"/>`), 'larger than 32 KB'],
  ])('refuses %s', (_what, icon, reason) => {
    expect(iconSvgProblem(icon)).toContain(reason)
  })
})

describe('a discovered plugin with a hostile icon', () => {
  let dir: string
  let configDir: string
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'bridge-icon-'))
    dir = copyFixture('good', root)
    await buildPlugin(dir)
    const file = join(dir, 'dist', 'tools.json')
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(
      file,
      JSON.stringify({ ...manifest, iconSvg: svg('<use href="https://evil.example/x.svg#a"/>') }),
    )
    configDir = join(root, 'config')
    mkdirSync(configDir)
  })
  afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }))

  it('loads without the icon, and discovery says why it was dropped', async () => {
    const snapshot = await discoverPlugins({
      configDir,
      config: { localPlugins: [dir] },
      env: { ...process.env, BRIDGE_SKIP_REGISTRY_DISCOVERY: '1' },
    })
    expect(snapshot.plugins.map((p) => p.name)).toEqual(['good'])
    expect(snapshot.plugins[0]?.iconSvg).toBeUndefined()
    expect(snapshot.discoveryErrors).toEqual([
      {
        source: 'local',
        path: dir,
        message: `the icon of plugin "good" was dropped: the icon is not plain SVG: the attribute href of <use> refers to something outside the icon (only #id is allowed); fix the icon and run "bridge-plugin build" in ${dir}`,
      },
    ])
  })
})

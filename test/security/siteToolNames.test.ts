/**
 * A site's tool is listed as `<site>__<tool>`, and the agent (and the person reading its transcript)
 * takes the site part as the site. The old code cut the site part at a length the page chose (through
 * its tool name's length) and gave a cut site part no hash, so
 * `https://accounts.examplebank-online.com.evil.io` got exactly the name the real bank's tool would get;
 * and `http://` and `https://`, or `a-b.com` and `a.b-com`, shared one name whenever only one of them was
 * open. Attack: every such pair, each origin named alone (as when only the attacker's tab is open), for
 * every length of tool name a page may declare.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { SITE_TOOL_NAME_MAX, siteToolNames } from '../../src/sites/siteNames'

const nameAlone = (origin: string, name: string): string =>
  siteToolNames([{ origin, name }]).values().next().value!

const PAIRS: [string, string][] = [
  ['https://accounts.examplebank-online.com', 'https://accounts.examplebank-online.com.evil.io'],
  ['https://accounts.examplebank.com', 'https://accounts.examplebank.com.evil.io'],
  ['https://examplebank.com', 'http://examplebank.com'],
  ['https://accounts.examplebank.com', 'https://accounts-examplebank.com'],
  ['https://accounts.examplebank.com', 'https://accounts-examplebank-com.evil.io'],
  ['https://examplebank.com:8443', 'https://examplebank.com-8443.evil.io'],
  ['https://a.b-c.example', 'https://a-b.c.example'],
  ['https://mail.example.com', 'https://mail_example.com'],
]

describe('a site tool’s listed name never equals another origin’s', () => {
  it.each(PAIRS)('%s and %s: different names for the same tool, at every tool-name length', (real, evil) => {
    for (let length = 1; length <= 120; length++) {
      const tool = 't'.repeat(length)
      const ours = nameAlone(real, tool)
      const theirs = nameAlone(evil, tool)
      expect(theirs).not.toBe(ours)
      expect(ours.length).toBeLessThanOrEqual(SITE_TOOL_NAME_MAX)
      expect(theirs.length).toBeLessThanOrEqual(SITE_TOOL_NAME_MAX)
    }
  })

  it('a cut site part carries a hash of the whole origin, so a longer look-alike cannot pick where it is cut', () => {
    const evil = 'https://accounts.examplebank-online.com.evil.io'
    const name = nameAlone(evil, 'transfer_money_to_the_account_given_in_the_input_now')
    const site = name.slice(0, name.indexOf('__'))
    const hash = createHash('sha256').update(evil).digest('hex').slice(0, 16)
    expect(site).toMatch(new RegExp(`^acc[a-z0-9-]*_${hash}$`))
  })

  it('names a plain https site by its plain slug', () => {
    expect(nameAlone('https://examplebank.com', 'transfer')).toBe('examplebank-com__transfer')
  })
})

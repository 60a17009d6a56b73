/** Handlers of src/tools/reading.ts: find in the snapshot, query elements, page as markdown. */
import type { reading as defs, BrowserToolInput } from '../../src/tools'
import type { Handlers } from './context'
import { invalid } from './errors'
import { snapshotWithFrames } from './frames'
import type * as pageOps from './pageLibrary/ops'
import { runInPage } from './pageScript'
import { resolveTab } from './tabLookup'

type In<K extends keyof typeof defs> = BrowserToolInput<(typeof defs)[K]>

/** Searching costs the agent only the matches, so the whole page (frames included) is outlined here. */
const FIND_SNAPSHOT_CHARS = 2_000_000

async function find(input: In<'find'>) {
  if ((input.text === undefined) === (input.regex === undefined))
    throw invalid('give text or regex (one of them)')
  let test: (line: string) => boolean
  if (input.regex !== undefined) {
    let re: RegExp
    try {
      re = new RegExp(input.regex, 'i')
    } catch (err) {
      throw invalid(`invalid regular expression: ${err instanceof Error ? err.message : String(err)}`)
    }
    test = (line) => re.test(line)
  } else {
    const needle = input.text!.toLowerCase()
    test = (line) => line.toLowerCase().includes(needle)
  }
  const tab = await resolveTab(input.tabId)
  const lines = (await snapshotWithFrames(tab, { walkLimit: FIND_SNAPSHOT_CHARS })).text.split('\n').slice(2)
  const around = input.context ?? 1
  const limit = input.limit ?? 30
  const hits = lines.flatMap((line, i) => (test(line.replace(/ \[ref=[^\]]+\]/g, '')) ? [i] : []))
  const matches = hits.slice(0, limit).map((i) => ({
    line: lines[i]!.trim(),
    context: lines.slice(Math.max(0, i - around), i + around + 1).join('\n'),
  }))
  return {
    total: hits.length,
    matches,
    ...(hits.length > limit
      ? { truncated: `showing ${limit} of ${hits.length}: search for something narrower` }
      : {}),
  }
}

async function query(input: In<'query'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage<ReturnType<typeof pageOps.query>>(tab, 'query', {
    selector: input.selector,
    attributes: input.attributes,
    limit: input.limit ?? 50,
  })
}

async function getMarkdown(input: In<'getMarkdown'>) {
  const tab = await resolveTab(input.tabId)
  return runInPage(tab, 'markdown', {
    selector: input.selector,
    maxLength: input.maxLength ?? 20_000,
    offset: input.offset,
  })
}

export const readingHandlers: Handlers<typeof defs> = { find, query, getMarkdown }

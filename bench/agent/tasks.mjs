// The scripted agent and its tasks. The agent behaves as a careful model would with any of the
// servers: it remembers what results showed it (the newest line wins), acts on refs it has seen, and
// takes a snapshot only when what it needs is not in what it has read; with chrome-devtools-mcp it asks
// an action for a snapshot (`includeSnapshot`) when it will need to see the result. Every call, its
// result's tokens and its time are recorded. Success is decided by the site's server.
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { CLICKABLE_TARGETS } from '../../test/fixtures/clickable/corpus.mjs'
import { FORM_FIELDS } from './site.mjs'
import { textOf } from './servers.mjs'

export const tokens = (text) => encode(text).length
let dumped = 0

export class Agent {
  constructor(server) {
    this.server = server
    this.known = ''
    this.steps = []
  }

  async call(spec, step) {
    const [tool, args] = spec
    const t0 = performance.now()
    const result = await this.server.client.callTool({ name: tool, arguments: args })
    const ms = performance.now() - t0
    const text = textOf(result)
    this.steps.push({
      step,
      tool,
      ms: Math.round(ms * 10) / 10,
      tokens: tokens(text),
      error: !!result.isError,
      // bridge says so when an action's settle wait ended at its cap.
      ...(text.includes('Stopped waiting at the') ? { capped: true } : {}),
    })
    if (result.isError) throw new Error(`${tool} failed: ${text.slice(0, 300)}`)
    this.known += `\n${text}`
    if (process.env.BENCH_DUMP)
      writeFileSync(
        join(process.env.BENCH_DUMP, `${this.server.key}-${String(++dumped).padStart(3, '0')}-${tool}.txt`),
        text,
      )
    return text
  }

  /** The ref on the newest line matching `line` (or, with `inside`, on a line of its subtree matching that). */
  refIn(text, line, inside) {
    const lines = text.split('\n')
    for (let i = lines.length - 1; i >= 0; i--) {
      if (!line.test(lines[i])) continue
      const found = inside ? this.refInside(lines, i, inside) : this.refOnOrAbove(lines, i)
      if (found) return found
    }
    return undefined
  }

  refsOf(text) {
    return [...text.matchAll(this.server.ref)].map((m) => m[1])
  }

  /** The first ref after `at` on the line, else the last before it (devtools writes uids first). */
  refAt(line, at) {
    return this.refsOf(line.slice(at))[0] ?? this.refsOf(line.slice(0, at)).at(-1)
  }

  refOnOrAbove(lines, i) {
    const own = this.refsOf(lines[i])[0]
    if (own) return own
    const indent = lines[i].search(/\S/)
    for (let j = i - 1; j >= 0 && j > i - 20; j--)
      if (lines[j].search(/\S/) < indent) return this.refsOf(lines[j])[0]
    return undefined
  }

  /** A ref matching `inside` on line i after the match, or below it within its parent (a row's cell). */
  refInside(lines, i, inside) {
    const at = lines[i].search(inside)
    if (at >= 0) return this.refAt(lines[i], at)
    for (let level = 0, top = i; level < 3; level++) {
      const indent = lines[top].search(/\S/)
      for (let j = i + 1; j < lines.length && lines[j].search(/\S/) > indent; j++)
        if (inside.test(lines[j])) return this.refAt(lines[j], lines[j].search(inside))
      let parent = top - 1
      while (parent >= 0 && lines[parent].search(/\S/) >= indent) parent--
      if (parent < 0) return undefined
      top = parent
    }
    return undefined
  }

  /** A ref for the element, from what the agent has read, else from a snapshot (after waiting for `wait`). */
  async ref(line, { inside, wait } = {}) {
    const known = this.refIn(this.known, line, inside)
    if (known) return known
    let snap = await this.call(this.server.snapshot(), 'snapshot')
    let found = this.refIn(snap, line, inside)
    if (!found && wait) {
      await this.call(this.server.waitText(wait), 'wait')
      snap = await this.call(this.server.snapshot(), 'snapshot')
      found = this.refIn(snap, line, inside)
    }
    if (!found) throw new Error(`no ref for ${line} in:\n${snap.slice(0, 3000)}`)
    return found
  }

  /**
   * The answer `pattern` finds in what the agent saw, else in a snapshot. While a workflow is being
   * recorded (`recording`), the agent looks for `find` on the page first, as an agent that means to
   * read the same thing again does: that call is the workflow's read step.
   */
  async read(pattern, find) {
    if (this.recording && find && this.server.find) {
      const found = pattern.exec(await this.call(this.server.find(find), 'find'))
      if (found) return found[1]
    }
    const seen = pattern.exec(this.known)
    if (seen) return seen[1]
    const snap = await this.call(this.server.snapshot(), 'snapshot')
    const found = pattern.exec(snap)
    if (!found) throw new Error(`${pattern} not on the page:\n${snap.slice(0, 3000)}`)
    return found[1]
  }

  open(url) {
    this.known = ''
    return this.call(this.server.open(url), 'open')
  }
  click(ref, see = false) {
    return this.call(this.server.click(ref, see), 'click')
  }
  async type(ref, text, { submit = false, see = false } = {}) {
    const spec = this.server.type(ref, text, submit, see)
    if (spec) return this.call(spec, 'type')
    await this.call(this.server.type(ref, text, false, false), 'type')
    return this.call(this.server.press('Enter', see), 'key')
  }
  fill(fields, see = false) {
    return this.call(this.server.fill(fields, see), 'fill')
  }
  acceptDialog() {
    return this.call(this.server.acceptDialog(), 'dialog')
  }
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const named = (name) => new RegExp(`"${esc(name)}`)

/** Each task: what a user would ask, and the scripted agent's way of doing it. */
export const TASKS = {
  article: {
    ask: 'In which year did the hill observatory open to the public?',
    // The answer is read off the page, not done on it.
    reads: { answer: /opened to the public in (\d{4})/, find: 'opened to the public' },
    async run(a, site) {
      await a.open(site.url('/article'))
      return { answer: await a.read(this.reads.answer, this.reads.find) }
    },
  },
  inbox: {
    ask: 'Reply "Approved" to the budget review mail from Grace Hopper.',
    async run(a, site) {
      await a.open(site.url('/inbox'))
      await a.click(await a.ref(/Budget review: Q4/), true)
      await a.click(await a.ref(/button "Reply"/, { wait: 'Reply' }), true)
      await a.type(await a.ref(/textbox "Reply text/), 'Approved, thanks.')
      await a.click(await a.ref(/button "Send"/))
    },
  },
  form: {
    ask: 'Start a trial with these 20 details.',
    async run(a, site) {
      await a.open(site.url('/form'))
      const fields = []
      for (const [label, , kind, value] of FORM_FIELDS)
        fields.push({ ref: await a.ref(named(label)), name: label, kind, value })
      await a.fill(fields)
      await a.click(await a.ref(/button "Start trial"/))
    },
  },
  table: {
    ask: 'Ship order #0347.',
    async run(a, site) {
      await a.open(site.url('/table'))
      await a.click(await a.ref(/#0347/, { inside: /button "Ship"/ }))
    },
  },
  frames: {
    ask: 'Save "Ada Lovelace" as the shipping name and pay with card 4242424242424242.',
    async run(a, site) {
      await a.open(site.url('/frames'))
      await a.type(await a.ref(/textbox "Full name"/), 'Ada Lovelace', { submit: true })
      await a.type(await a.ref(/textbox "Card number"/), '4242424242424242', { submit: true })
    },
  },
  spa: {
    ask: 'Load the projects and approve Beta.',
    async run(a, site) {
      await a.open(site.url('/spa'))
      await a.click(await a.ref(/button "Load projects"/), true)
      await a.click(await a.ref(/button "Approve Beta"/, { wait: 'Beta' }))
    },
  },
  login: {
    ask: 'Sign in as ada (password "correct horse") and tell me the balance.',
    reads: { answer: /Balance:[\s\S]{0,80}?(£[\d,.]+)/, find: 'Balance:' },
    // A password is a secret variable with no stored value: each run of the workflow gives it.
    secrets: { password: 'correct horse' },
    async run(a, site) {
      await a.open(site.url('/login'))
      await a.type(await a.ref(/textbox "Username"/), 'ada')
      await a.type(await a.ref(/textbox "Password"/), 'correct horse', { submit: true, see: true })
      return { answer: await a.read(this.reads.answer, this.reads.find) }
    },
  },
  dialog: {
    ask: 'Delete the old drafts.',
    async run(a, site) {
      await a.open(site.url('/dialog'))
      await a.click(await a.ref(/button "Delete old drafts"/))
      await a.acceptDialog()
    },
  },
  search: {
    ask: 'Search the catalogue for "telescope" and open the tripod.',
    async run(a, site) {
      await a.open(site.url('/search'))
      await a.type(await a.ref(/"Search"/), 'telescope', { submit: true, see: true })
      await a.click(await a.ref(/link "Telescope tripod"/))
    },
  },
  mail: {
    ask: 'Open the budget review mail from Grace Hopper and archive it.',
    async run(a, site) {
      await a.open(site.url('/mail'))
      await a.click(await a.ref(/Budget review: Q4/), true)
      await a.click(await a.ref(/Archive/, { wait: 'Archive' }))
    },
  },
}

/**
 * Actionability: for each thing of the clickable corpus (test/fixtures/clickable/corpus.mjs), the agent
 * takes a snapshot, finds the line naming it, clicks the ref it reads there, and the page's server says
 * whether the click did what a person's does. Returns each thing's outcome and the calls made.
 */
export async function actionability(server, site) {
  site.resetClicks()
  const a = new Agent(server)
  await a.open(site.url('/clickable'))
  const targets = []
  for (const target of CLICKABLE_TARGETS) {
    const snap = await a.call(server.snapshot(), 'snapshot')
    const ref = a.refIn(snap, new RegExp(target.line))
    let ok = false
    if (ref) {
      await a.click(ref).catch(() => undefined)
      for (let i = 0; i < 30 && !(ok = site.clicked().includes(target.id)); i++)
        await new Promise((r) => setTimeout(r, 100))
    }
    targets.push({ id: target.id, pattern: target.pattern, ok, ...(ref ? {} : { noRef: true }) })
  }
  return { total: targets.length, clicked: targets.filter((t) => t.ok).length, targets, steps: a.steps }
}

/** The pages whose snapshot is measured, with what must be on them first. */
export const PAGES = [
  '/article',
  '/inbox',
  '/form',
  '/table',
  '/frames',
  '/spa',
  '/login',
  '/account',
  '/dialog',
  '/search',
  '/mail',
  '/clickable',
]

// Agent benchmark: the same pages and scripted tasks against bridge, Playwright MCP and
// chrome-devtools-mcp, on the same Chromium (headless, 1280x720), pages on loopback (bench/agent/site.mjs).
// Measures, per server: the default tool list (tools and o200k tokens), per page the tokens of one
// snapshot, per task the calls, the result tokens and success (judged by the site's server), and the
// time of each kind of step as a ratio to bridge's. Writes bench/agent-results.json and the README's
// "Agent benchmark" section. Never fails on figures; exits 1 only when it cannot run.
//
//   npm run bench:agent                      # every server, every task
//   npm run bench:agent -- --only bridge     # one server (no README update)
//   npm run bench:agent -- --task inbox      # one task (no README update)
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { installPeers } from '../peerServers.mjs'
import { SERVERS, VIEWPORT, CHROMIUM } from './servers.mjs'
import { startAgentSite } from './site.mjs'
import { actionability, Agent, PAGES, TASKS, tokens } from './tasks.mjs'
import { renderReadme } from './report.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const argv = process.argv.slice(2)
const opt = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined)
const only = opt('--only')
const onlyTask = opt('--task')
const verbose = argv.includes('--verbose')

installPeers()
const site = await startAgentSite()
const results = {}
try {
  for (const key of Object.keys(SERVERS)) {
    if (only && key !== only) continue
    process.stdout.write(`${key}: starting\n`)
    const server = await SERVERS[key]()
    try {
      const { tools } = await server.client.listTools()
      const out = {
        name: server.name,
        package: server.package,
        toolList: {
          tools: tools.length,
          tokens: tokens(JSON.stringify(tools)),
          // What a model is given of each tool (name, description, input schema: the fields of a tool
          // definition in the model APIs); an output schema or annotations inform the client only.
          modelTokens: tokens(
            JSON.stringify(
              tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
            ),
          ),
        },
        pages: {},
        tasks: {},
      }
      // Warm the browser: the first page load pays for process start-up, on every server alike.
      await new Agent(server).open(site.url('/login'))
      for (const path of onlyTask ? [] : PAGES) {
        const a = new Agent(server)
        await a.open(site.url(path))
        if (path === '/account') continue
        const text = await a.call(server.snapshot(), 'snapshot')
        out.pages[path] = { tokens: tokens(text), chars: text.length, ms: a.steps.at(-1).ms }
        if (verbose) console.log(`--- ${key} ${path}\n${text}`)
      }
      // /account is reached by signing in; measured after the login task below.
      for (const [name, task] of Object.entries(TASKS)) {
        if (onlyTask && name !== onlyTask) continue
        site.reset()
        const a = new Agent(server)
        let error
        try {
          const answer = (await task.run(a, site))?.answer
          if (answer !== undefined)
            await fetch(site.url(`/answer/${name}`), { method: 'POST', body: String(answer) })
        } catch (err) {
          error = String(err instanceof Error ? err.message : err).slice(0, 500)
        }
        let ok = false
        for (let i = 0; i < 30 && !(ok = site.check(name)); i++) await new Promise((r) => setTimeout(r, 100))
        out.tasks[name] = {
          ok,
          calls: a.steps.length,
          tokens: a.steps.reduce((s, x) => s + x.tokens, 0),
          ms: Math.round(a.steps.reduce((s, x) => s + x.ms, 0)),
          steps: a.steps,
          ...(error ? { error } : {}),
        }
        if (name === 'login' && ok && !onlyTask) {
          const text = await new Agent(server).call(server.snapshot(), 'snapshot')
          out.pages['/account'] = { tokens: tokens(text), chars: text.length }
        }
        if (verbose) for (const s of a.steps) console.log(`  ${name} ${s.tool} ${s.tokens} tok ${s.ms} ms`)
        process.stdout.write(
          `${key} ${name}: ${ok ? 'ok' : 'FAILED'} ${a.steps.length} calls ${out.tasks[name].tokens} tokens${error ? ` (${error.split('\n')[0]})` : ''}\n`,
        )
      }
      if (!onlyTask) {
        out.actionability = await actionability(server, site)
        process.stdout.write(
          `${key} clickable corpus: ${out.actionability.clicked}/${out.actionability.total}${out.actionability.targets
            .filter((t) => !t.ok)
            .map((t) => ` ${t.id}${t.noRef ? ' (no ref)' : ''}`)
            .join('')}\n`,
        )
      }
      results[key] = out
    } finally {
      await server.close()
    }
  }
} finally {
  await site.close()
}

const run = {
  date: new Date().toISOString(),
  chromium: execVersion(),
  viewport: `${VIEWPORT.width}x${VIEWPORT.height}`,
  tokenizer: 'o200k_base (gpt-tokenizer 4.0.0)',
  servers: results,
}
const partial = only || onlyTask
writeFileSync(
  join(root, partial ? 'bench/tmp/agent-results-partial.json' : 'bench/agent-results.json'),
  `${JSON.stringify(run, null, 2)}\n`,
)
const table = renderReadme(run)
console.log(table)
if (!partial) {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const start = '<!-- agent-bench:start -->'
  const end = '<!-- agent-bench:end -->'
  if (readme.includes(start))
    writeFileSync(
      join(root, 'README.md'),
      readme.slice(0, readme.indexOf(start) + start.length) +
        `\n${table}\n` +
        readme.slice(readme.indexOf(end)),
    )
  // The repository's own format (npm run check), so a run leaves no diff but its figures.
  execFileSync(
    join(root, 'node_modules/.bin/prettier'),
    ['--write', 'README.md', 'bench/agent-results.json'],
    {
      cwd: root,
      stdio: 'ignore',
    },
  )
}

function execVersion() {
  try {
    return execFileSync(CHROMIUM, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    return CHROMIUM
  }
}

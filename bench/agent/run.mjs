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
//   npm run bench:agent -- --rounds 5        # each task five times per server (default 3)
//   npm run bench:agent -- --flow-guard      # bridge's tasks with the data-flow guard on (block): its
//                                            # false positives (bench/agent-flow-guard.json)
//
// The second pass (bridge): each task bridge solved is recorded on a run of its own (so the first pass
// is measured without the recording's capture), turned on, and run again as its workflow, one call of
// `workflow_bench_<task>`: its calls, result tokens and time beside the first pass's.
import { execFileSync } from 'node:child_process'
import { performance } from 'node:perf_hooks'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { installPeers } from '../peerServers.mjs'
import { SERVERS, VIEWPORT, CHROMIUM, textOf } from './servers.mjs'
import { startAgentSite } from './site.mjs'
import { actionability, Agent, PAGES, TASKS, tokens } from './tasks.mjs'
import { renderReadme } from './report.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const argv = process.argv.slice(2)
const opt = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined)
const only = argv.includes('--flow-guard') ? 'bridge' : opt('--only')
const onlyTask = opt('--task')
const verbose = argv.includes('--verbose')
// The guard in `block`: a flow it would put to the user fails the call at once (and the task) and is
// audited, where `ask` would wait for a person the benchmark does not have.
const flowGuard = argv.includes('--flow-guard')
// Each task this many times on every server: its time and its steps' times are medians over the rounds.
const rounds = Number(opt('--rounds') ?? 3)

if (only !== 'bridge') installPeers()
const site = await startAgentSite()
const results = {}
/** key -> the started server; all run at once, so each page and task is measured on every server in turn. */
const servers = {}
try {
  for (const key of Object.keys(SERVERS)) {
    if (only && key !== only) continue
    process.stdout.write(`${key}: starting\n`)
    const server = await SERVERS[key](flowGuard ? { flowGuard: 'block' } : {})
    servers[key] = server
    const { tools } = await server.client.listTools()
    results[key] = {
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
  }
  // The servers take turns, page by page and task by task (the order rotating), so a change in the
  // shared machine's load falls on all of them alike rather than on whichever ran at that moment.
  let turn = 0
  const inTurn = () => {
    const keys = Object.keys(servers)
    const shift = turn++ % keys.length
    return [...keys.slice(shift), ...keys.slice(0, shift)]
  }
  for (const path of onlyTask ? [] : PAGES) {
    for (const key of inTurn()) {
      const server = servers[key]
      const a = new Agent(server)
      await a.open(site.url(path))
      if (path === '/account') continue
      const text = await a.call(server.snapshot(), 'snapshot')
      results[key].pages[path] = { tokens: tokens(text), chars: text.length, ms: a.steps.at(-1).ms }
      if (verbose) console.log(`--- ${key} ${path}\n${text}`)
    }
  }
  // The second pass needs the recording tools and workflows: turned on after the tool lists were measured.
  for (const [key, server] of Object.entries(servers)) {
    if (!server.cli || flowGuard) continue
    server.cli(['config', 'set', 'browser-groups.add', 'workflows'])
    results[key].workflows = {}
    // The daemon re-reads its config (the first request after may find its connection closed):
    // wait until the recording tools are listed.
    for (let i = 0; i < 100; i++) {
      const listed = await server.client.listTools().catch(() => ({ tools: [] }))
      if (listed.tools.some((t) => t.name === 'browser_recording_start')) break
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  // /account is reached by signing in; measured after the login task below.
  for (let round = 0; round < rounds; round++) {
    for (const [name, task] of Object.entries(TASKS)) {
      if (onlyTask && name !== onlyTask) continue
      for (const key of inTurn()) await runTask(key, servers[key], results[key], name, task, round)
    }
  }
  for (const [key, server] of Object.entries(servers)) {
    const out = results[key]
    if (!onlyTask) {
      out.actionability = await actionability(server, site)
      process.stdout.write(
        `${key} clickable corpus: ${out.actionability.clicked}/${out.actionability.total}${out.actionability.targets
          .filter((t) => !t.ok)
          .map((t) => ` ${t.id}${t.noRef ? ' (no ref)' : ''}`)
          .join('')}\n`,
      )
    }
    if (flowGuard) out.flowGuard = flowGuardRecords(server.audit())
  }
} finally {
  for (const server of Object.values(servers)) await server.close()
  await site.close()
}

/**
 * One task on one server. The first round's run is the task's result (calls, tokens, success); each
 * round's steps count in the step medians and its time in the task's median time.
 */
async function runTask(key, server, out, name, task, round) {
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
  const ms = Math.round(a.steps.reduce((s, x) => s + x.ms, 0))
  if (round > 0) {
    const first = out.tasks[name]
    first.roundsMs.push(ms)
    first.laterSteps.push(...a.steps)
    if (!ok) first.laterFailures = (first.laterFailures ?? 0) + 1
  } else {
    out.tasks[name] = {
      ok,
      calls: a.steps.length,
      tokens: a.steps.reduce((s, x) => s + x.tokens, 0),
      ms,
      roundsMs: [ms],
      steps: a.steps,
      laterSteps: [],
      ...(error ? { error } : {}),
    }
  }
  if (name === 'login' && ok && !onlyTask && round === 0) {
    const text = await new Agent(server).call(server.snapshot(), 'snapshot')
    out.pages['/account'] = { tokens: tokens(text), chars: text.length }
  }
  if (verbose) for (const s of a.steps) console.log(`  ${name} ${s.tool} ${s.tokens} tok ${s.ms} ms`)
  process.stdout.write(
    `${key} ${name}${rounds > 1 ? ` (round ${round + 1})` : ''}: ${ok ? 'ok' : 'FAILED'} ${a.steps.length} calls ${a.steps.reduce((s, x) => s + x.tokens, 0)} tokens ${ms} ms${error ? ` (${error.split('\n')[0]})` : ''}\n`,
  )
  if (out.workflows && ok && round === 0) {
    const w = (out.workflows[name] = await workflowPass(server, name, task, out.tasks[name]))
    process.stdout.write(
      `${key} ${name} as a workflow: ${w.ok ? 'ok' : 'FAILED'} ${w.calls} call ${w.tokens ?? '-'} tokens ${w.ms ?? '-'} ms (first pass ${out.tasks[name].ms} ms)${w.error ? ` (${w.error.split('\n')[0]})` : ''}\n`,
    )
  }
}

const run = {
  date: new Date().toISOString(),
  chromium: execVersion(),
  viewport: `${VIEWPORT.width}x${VIEWPORT.height}`,
  tokenizer: 'o200k_base (gpt-tokenizer 4.0.0)',
  rounds,
  load: loadAverage(),
  servers: results,
}
if (flowGuard) {
  const { tasks, flowGuard: records } = results.bridge
  const summary = {
    date: run.date,
    chromium: run.chromium,
    mode: 'block',
    tasks: Object.keys(tasks).length,
    tasksOk: Object.values(tasks).filter((t) => t.ok).length,
    calls: Object.values(tasks).reduce((sum, t) => sum + t.calls, 0),
    failedTasks: Object.entries(tasks)
      .filter(([, t]) => !t.ok)
      .map(([name, t]) => ({ name, error: t.error })),
    ...records,
  }
  writeFileSync(join(root, 'bench/agent-flow-guard.json'), `${JSON.stringify(summary, null, 2)}\n`)
  console.log(
    `flow guard (block): ${summary.tasksOk}/${summary.tasks} tasks ok, ${summary.calls} calls, ` +
      `${summary.guarded} guarded, ${summary.wouldAsk} would have asked (${JSON.stringify(summary.decisions)})`,
  )
  process.exit(0)
}
const partial = only || onlyTask
// The second pass on its own file, whichever servers ran: bridge's first pass and its workflow per task.
if (results.bridge?.workflows)
  writeFileSync(
    join(root, 'bench/agent-workflows.json'),
    `${JSON.stringify(
      {
        date: run.date,
        chromium: run.chromium,
        tokenizer: run.tokenizer,
        target: 'one call, at most 10% of the first pass result tokens, less time than the first pass',
        tasks: Object.fromEntries(
          Object.entries(results.bridge.workflows).map(([name, workflow]) => {
            const { calls, tokens: used, ms, ok } = results.bridge.tasks[name]
            return [name, { firstPass: { ok, calls, tokens: used, ms }, workflow }]
          }),
        ),
      },
      null,
      2,
    )}\n`,
  )
if (partial) mkdirSync(join(root, 'bench/tmp'), { recursive: true })
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

/** The machine's load average (1, 5, 15 minutes) as the run ends: the figures are ratios within a run. */
function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number)
  } catch {
    return undefined
  }
}

/**
 * One task as a workflow: recorded on a run of its own, turned on with the CLI as a user would, then
 * run in one call with its recorded values (a secret given, as it must be). The site's server judges;
 * a task whose point is an answer read off the page takes it from the run's read steps.
 */
async function workflowPass(server, name, task, first) {
  const workflow = `bench_${name}`
  const call = (tool, args = {}) =>
    server.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 180_000 })
  site.reset()
  await call('browser_recording_start', { name: workflow, description: task.ask })
  let recorded
  try {
    const agent = new Agent(server)
    agent.recording = true
    await task.run.call(task, agent, site)
  } catch (err) {
    recorded = String(err instanceof Error ? err.message : err).slice(0, 300)
  }
  const stop = await call('browser_recording_stop')
  if (recorded || stop.isError)
    return { ok: false, calls: 1, error: `not recorded: ${recorded ?? textOf(stop).slice(0, 300)}` }
  const steps = stop.structuredContent?.steps?.length ?? 0
  server.cli(['workflow', 'set', workflow, 'auto'])
  // The CLI has the daemon re-read its files; the first request after that may find its connection
  // closed, so this waits (and retries) until the workflow is listed. The daemon takes 10 reloads a
  // minute: past that (ten tasks in a row) the set is asked again every 10 s until one is taken.
  for (let i = 1; i <= 800; i++) {
    const listed = await server.client.listTools().catch(() => ({ tools: [] }))
    if (listed.tools.some((t) => t.name === `workflow_${workflow}`)) break
    if (i % 100 === 0) server.cli(['workflow', 'set', workflow, 'auto'])
    await new Promise((r) => setTimeout(r, 100))
  }
  site.reset()
  const t0 = performance.now()
  const result = await call(`workflow_${workflow}`, task.secrets ?? {})
  const ms = Math.round(performance.now() - t0)
  const text = textOf(result)
  // A task whose point is an answer: the run's read steps carry it, as the first pass's agent read it.
  const answer = task.reads?.answer.exec(text)?.[1]
  if (answer !== undefined) await fetch(site.url(`/answer/${name}`), { method: 'POST', body: answer })
  let ok = false
  for (let i = 0; i < 30 && !(ok = site.check(name)); i++) await new Promise((r) => setTimeout(r, 100))
  const run = result.structuredContent ?? {}
  const error = result.isError
    ? text.slice(0, 300)
    : run.ok === false
      ? `stopped at step ${run.stopped?.step}: ${run.stopped?.reason} ${run.stopped?.message ?? ''}`.slice(
          0,
          300,
        )
      : !ok && task.reads
        ? `the run's result did not carry the answer (${answer === undefined ? 'none found' : 'a wrong one'})`
        : undefined
  return {
    ok,
    calls: 1,
    steps,
    tokens: tokens(text),
    ms,
    ofFirstPass: { tokens: round2(tokens(text) / first.tokens), ms: round2(ms / first.ms) },
    ...(error ? { error } : {}),
  }
}

function round2(x) {
  return Math.round(x * 100) / 100
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

/**
 * What the data-flow guard decided over a run, from the audit: calls it had a say in, their decisions,
 * and how many it would have put to the user (every decision but a same-origin or allowed flow).
 */
function flowGuardRecords(entries) {
  const decisions = {}
  let wouldAsk = 0
  const guarded = entries.filter((e) => e.flowGuard)
  for (const { flowGuard: record } of guarded) {
    decisions[record.decision] = (decisions[record.decision] ?? 0) + 1
    if (!['same_origin', 'allowed_before'].includes(record.decision)) wouldAsk++
  }
  return {
    audited: entries.length,
    guarded: guarded.length,
    wouldAsk,
    decisions,
    flows: guarded
      .filter((e) => e.flowGuard.decision !== 'same_origin')
      .map((e) => ({ tool: e.tool, ...e.flowGuard })),
  }
}

// The README section of an agent benchmark run: tables of the figures in bench/agent-results.json.
const ORDER = ['bridge', 'playwright', 'devtools']

const median = (xs) => {
  if (!xs.length) return undefined
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** Median time of each kind of step (open, click, type...) over every task, per server. */
export function stepTimes(run) {
  const out = {}
  for (const key of ORDER) {
    const server = run.servers[key]
    if (!server) continue
    // Snapshots: those of the pages measured (every server takes one of each), then the tasks'.
    const byStep = { snapshot: Object.values(server.pages).map((p) => p.ms) }
    for (const task of Object.values(server.tasks))
      for (const s of [...task.steps, ...(task.laterSteps ?? [])])
        if (!s.error) (byStep[s.step] ??= []).push(s.ms)
    out[key] = Object.fromEntries(Object.entries(byStep).map(([k, v]) => [k, median(v)]))
  }
  return out
}

export function renderReadme(run) {
  const keys = ORDER.filter((k) => run.servers[k])
  const s = run.servers
  const head = (first) =>
    `| ${first} | ${keys.map((k) => s[k].name).join(' | ')} |\n| --- | ${keys.map(() => '---:').join(' | ')} |`
  const lines = []
  lines.push(
    `Last run ${run.date.slice(0, 16).replace('T', ' ')} UTC${run.load ? ` (load average ${run.load.join(' / ')})` : ''}; ${run.chromium}, headless, ${run.viewport}; tokens: ${run.tokenizer}; ${keys.map((k) => s[k].package).join(', ')}; the servers take turns page by page and task by task, each task ${run.rounds ?? 1} times.`,
    '',
    head('Default tool list'),
    `| tools | ${keys.map((k) => s[k].toolList.tools).join(' | ')} |`,
    `| tokens, as listed | ${keys.map((k) => s[k].toolList.tokens.toLocaleString('en')).join(' | ')} |`,
    `| tokens a model is given (name, description, input schema) | ${keys.map((k) => s[k].toolList.modelTokens?.toLocaleString('en') ?? '-').join(' | ')} |`,
    '',
    head('Snapshot of a page (tokens)'),
  )
  const pages = Object.keys(s[keys[0]].pages)
  for (const p of pages)
    lines.push(
      `| \`${p}\` | ${keys.map((k) => s[k].pages[p]?.tokens?.toLocaleString('en') ?? '-').join(' | ')} |`,
    )
  lines.push('', head('Task: calls / result tokens'))
  const tasks = Object.keys(s[keys[0]].tasks)
  const total = Object.fromEntries(keys.map((k) => [k, { calls: 0, tokens: 0 }]))
  for (const t of tasks) {
    lines.push(
      `| ${t} | ${keys
        .map((k) => {
          const r = s[k].tasks[t]
          if (!r) return '-'
          total[k].calls += r.calls
          total[k].tokens += r.tokens
          return `${r.ok ? '' : 'FAILED '}${r.calls} / ${r.tokens.toLocaleString('en')}`
        })
        .join(' | ')} |`,
    )
  }
  lines.push(
    `| **total** | ${keys.map((k) => `**${total[k].calls} / ${total[k].tokens.toLocaleString('en')}**`).join(' | ')} |`,
  )
  if (keys.every((k) => s[k].actionability)) {
    const act = (k) => s[k].actionability
    const clickMs = Object.fromEntries(
      keys.map((k) => [
        k,
        median(
          act(k)
            .steps.filter((x) => x.step === 'click' && !x.error)
            .map((x) => x.ms),
        ),
      ]),
    )
    lines.push(
      '',
      head(`Clickable corpus (${act(keys[0]).total} things)`),
      `| clicked through the snapshot's ref | ${keys.map((k) => `${act(k).clicked}/${act(k).total} (${Math.round((100 * act(k).clicked) / act(k).total)}%)`).join(' | ')} |`,
      `| missed | ${keys
        .map(
          (k) =>
            act(k)
              .targets.filter((t) => !t.ok)
              .map((t) => `${t.id}${t.noRef ? ' (no ref)' : ''}`)
              .join(', ') || '-',
        )
        .join(' | ')} |`,
      `| click (median) vs bridge | ${keys.map((k) => (k === 'bridge' ? `${Math.round(clickMs[k])} ms` : `${(clickMs[k] / clickMs.bridge).toFixed(1)}x`)).join(' | ')} |`,
    )
  }
  const capped = Object.values(s.bridge?.tasks ?? {}).reduce(
    (n, t) => n + [...t.steps, ...(t.laterSteps ?? [])].filter((x) => x.capped).length,
    0,
  )
  const times = stepTimes(run)
  const steps = [...new Set(keys.flatMap((k) => Object.keys(times[k])))]
  lines.push('', head('Step time (median) vs bridge; the fastest in bold'))
  for (const st of steps) {
    const base = times.bridge?.[st]
    const best = Math.min(...keys.map((k) => times[k][st] ?? Infinity))
    lines.push(
      `| ${st} | ${keys
        .map((k) => {
          const v = times[k][st]
          if (v === undefined) return '-'
          if (base === undefined) return `${Math.round(v)} ms (bridge needs none)`
          const cell = k === 'bridge' ? `${Math.round(v)} ms` : `${(v / base).toFixed(2)}x`
          return v === best ? `**${cell}**` : cell
        })
        .join(' | ')} |`,
    )
  }
  // Each task's time: the sum of its calls' times, median over the rounds; the lowest in bold.
  lines.push('', head(`Task time (median of ${run.rounds ?? 1}) vs bridge`))
  const taskMs = (k, t) =>
    median(s[k].tasks[t]?.roundsMs ?? [s[k].tasks[t]?.ms].filter((x) => x !== undefined))
  for (const t of tasks) {
    const best = Math.min(...keys.map((k) => taskMs(k, t) ?? Infinity))
    lines.push(
      `| ${t} | ${keys
        .map((k) => {
          const v = taskMs(k, t)
          if (v === undefined) return '-'
          const cell = k === 'bridge' ? `${Math.round(v)} ms` : `${(v / taskMs('bridge', t)).toFixed(2)}x`
          return v === best ? `**${cell}**` : cell
        })
        .join(' | ')} |`,
    )
  }
  if (s.bridge) lines.push('', `bridge's task steps that ended at the settle wait's cap: ${capped}.`)
  if (s.bridge?.workflows) lines.push('', renderWorkflows(run))
  return lines.join('\n')
}

/**
 * The second pass: each task bridge solved, run again as its workflow (one call), beside its first
 * pass and the peers' (who redo every step). Target: 1 call, at most 10% of the first pass's result
 * tokens, less time than the first pass.
 */
export function renderWorkflows(run) {
  const s = run.servers
  const peers = ORDER.filter((k) => k !== 'bridge' && s[k])
  const lines = [
    `| Task, as a workflow | steps | calls | result tokens | time | of bridge's first pass (tokens / time) | target met | ${peers.map((k) => `${s[k].name}: calls / tokens / time`).join(' | ')} |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | --- | ${peers.map(() => '---:').join(' | ')} |`,
  ]
  for (const [name, w] of Object.entries(s.bridge.workflows)) {
    const first = s.bridge.tasks[name]
    const met = w.ok && w.calls === 1 && w.ofFirstPass && w.ofFirstPass.tokens <= 0.1 && w.ofFirstPass.ms < 1
    lines.push(
      `| ${name} | ${w.steps ?? '-'} | ${w.calls} | ${w.tokens ?? '-'} | ${w.ms ?? '-'} ms | ${
        w.ofFirstPass
          ? `${Math.round(w.ofFirstPass.tokens * 100)}% / ${Math.round(w.ofFirstPass.ms * 100)}% (${first.calls} calls, ${first.tokens.toLocaleString('en')} tokens, ${first.ms} ms)`
          : '-'
      } | ${met ? 'yes' : `no${w.error ? `: ${w.error.replace(/\|/g, '/').split('\n')[0]}` : ''}`} | ${peers
        .map((k) => {
          const t = s[k].tasks[name]
          return t
            ? `${t.ok ? '' : 'FAILED '}${t.calls} / ${t.tokens.toLocaleString('en')} / ${t.ms} ms`
            : '-'
        })
        .join(' | ')} |`,
    )
  }
  return lines.join('\n')
}

/**
 * `bridge workflow run <name> --var k=v`: one `tools/call` of `workflow_<name>` on the running daemon's
 * `/mcp` (the stateless revision: one request, no session), as the CLI's own identity. The call takes
 * the path every call takes: the workflow's permission (off refuses; ask waits for the side panel),
 * validation (a missing variable refuses before any step), audit.
 */
import { neutralizeText } from '../../../src/protocol/untrustedText'
import { workflowToolName } from '../../../src/protocol/toolNames'
import { daemonFetch } from '../../../src/http/daemonClient'
import { fail, say } from '../../shared/output'
import { runningConfigContext } from '../config/context'

export interface RunFlags {
  port?: unknown
  json?: boolean
  var?: string | string[]
  tab?: unknown
}

export const EXIT = { ok: 0, usage: 1, stopped: 2, refused: 3, noDaemon: 4 } as const
/** A run waits as long as its steps take (and an approval, in ask): the daemon's own call deadline bounds it. */
const RUN_TIMEOUT_MS = 6 * 60_000

function variables(flags: RunFlags): Record<string, string> | string {
  const given = flags.var === undefined ? [] : Array.isArray(flags.var) ? flags.var : [flags.var]
  const out: Record<string, string> = {}
  for (const pair of given.map(String)) {
    const at = pair.indexOf('=')
    if (at <= 0) return `--var takes key=value, not "${neutralizeText(pair, 40)}"`
    out[pair.slice(0, at)] = pair.slice(at + 1)
  }
  return out
}

interface CallResult {
  isError?: boolean
  content?: { type: string; text?: string }[]
  structuredContent?: unknown
}

export async function runWorkflow(name: string, flags: RunFlags): Promise<void> {
  const vars = variables(flags)
  if (typeof vars === 'string') return fail(vars)
  const tab = flags.tab === undefined ? undefined : Number(flags.tab)
  if (tab !== undefined && !Number.isInteger(tab)) return fail('--tab takes a tab id (an integer)')
  const context = await runningConfigContext(flags)
  const tool = workflowToolName(name)
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: { ...vars, ...(tab !== undefined ? { tabId: tab } : {}) },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bridge-cli', version: '1' },
      },
    },
  }
  const sent = await daemonFetch(context.port, context.secret, '/mcp', {
    method: 'POST',
    timeoutMs: RUN_TIMEOUT_MS,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify(body),
  })
  if (!sent.ok) {
    fail(sent.message)
    process.exitCode = EXIT.noDaemon
    return
  }
  const text = await sent.response.text()
  const json = (() => {
    try {
      // A streamed answer: the last `data:` line carries the result.
      const data = text.includes('data: ')
        ? text
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .at(-1)!
            .slice(6)
        : text
      return JSON.parse(data) as { result?: CallResult; error?: { message: string } }
    } catch {
      return undefined
    }
  })()
  const result = json?.result
  if (!result) {
    fail(
      `the daemon did not run ${tool}: ${neutralizeText(json?.error?.message ?? `HTTP ${sent.response.status}`, 300)}`,
    )
    process.exitCode = EXIT.usage
    return
  }
  const first = result.content?.find((c) => c.type === 'text')?.text ?? ''
  if (result.isError) {
    fail(`${tool}: ${neutralizeText(first, 1000)}`)
    process.exitCode = EXIT.refused
    return
  }
  const output = (result.structuredContent ?? {}) as {
    ok?: boolean
    healed?: { step: number; by: string }[]
    read?: { step: number; text: string }[]
    stopped?: { step: number; action: string; reason: string; message: string; page: string }
  }
  // What read steps read is the page's text: shown neutralized, never raw.
  const reads = () => {
    for (const r of output.read ?? []) {
      say(`step ${r.step} read:`)
      say(neutralizeText(r.text, 4000))
    }
  }
  if (flags.json) say(JSON.stringify(output, null, 2))
  if (output.ok) {
    if (!flags.json) {
      say(`${name}: every step done`)
      for (const h of output.healed ?? [])
        say(`  step ${h.step} healed (found by ${h.by}); the new locator is saved`)
      reads()
    }
    return
  }
  const stop = output.stopped
  if (!flags.json && stop) {
    reads()
    say(`${name}: stopped at step ${stop.step} (${neutralizeText(stop.action, 300)}): ${stop.reason}`)
    say(neutralizeText(stop.message, 1000))
    say('The page around it:')
    say(neutralizeText(stop.page, 4000))
  }
  process.exitCode = EXIT.stopped
}

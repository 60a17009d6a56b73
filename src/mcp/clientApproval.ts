/**
 * An approval put to the user through the MCP client itself, for a client the user trusts to show
 * it (`bridge client approvals <name> on`): the question as an MCP elicitation form (sent as
 * `elicitation/create` in a 2025-11-25 session, or inside an `input_required` result in 2026-07-28),
 * and the answer read back. The same request waits in the side panel; the first answer decides.
 * Everything a page or an agent wrote (tab title, URL, arguments) is neutralized and capped.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { ApprovalFlow, ApprovalRequest, Decision } from '../protocol/messages'
import { neutralizeText } from '../protocol/untrustedText'

/** `allow_always` only answers a flow question (it allows the flows for this client, never a tool). */
export type ClientDecision = Decision

const KIND_WORDS = {
  token: 'a secret-looking token',
  email: 'an e-mail address',
  number: 'a long number',
  text: 'text',
}

/** The flow question in words, every part neutralized: what, masked, from which site to which. */
function flowWords(flow: ApprovalFlow): string {
  const items = flow.flows.map(
    (f) =>
      `${KIND_WORDS[f.kind]} ${neutralizeText(f.masked, 300)} from ${neutralizeText(f.from, 300)} to ${neutralizeText(f.to, 300)}`,
  )
  return `DATA LEAVING A SITE: this call would carry what the agent read on one site to another: ${items.join('; ')}. A page can tell an agent to copy your data elsewhere; allow only if you asked for this. `
}

const pairsOf = (flow: ApprovalFlow): string =>
  [...new Set(flow.flows.map((f) => `${neutralizeText(f.from, 300)} -> ${neutralizeText(f.to, 300)}`))].join(
    ', ',
  )

const ARGUMENTS_SHOWN = 2000

/** The elicitation form params: one required choice, allow once or deny ("always" stays in the side panel). */
export function approvalElicitation(request: ApprovalRequest): {
  mode: 'form'
  message: string
  requestedSchema: Record<string, unknown>
} {
  let args = JSON.stringify(request.params ?? {}) ?? '{}'
  if (args.length > ARGUMENTS_SHOWN)
    args = `${args.slice(0, ARGUMENTS_SHOWN)}… (${args.length} characters in all)`
  const where = request.tab
    ? ` in the tab "${neutralizeText(request.tab.title, 200)}" (${neutralizeText(request.tab.url, 500)})`
    : ''
  const seconds = Math.max(0, Math.round((request.expiresAt - Date.now()) / 1000))
  const destructive =
    request.annotations?.destructiveHint === true
      ? 'a destructive tool (it declares that it may delete or overwrite data): '
      : ''
  return {
    mode: 'form',
    message:
      `bridge: ${request.flow ? flowWords(request.flow) : ''}${destructive}allow "${neutralizeText(request.client, 64)}" to run ${neutralizeText(request.tool, 128)} ` +
      `(plugin ${neutralizeText(request.plugin, 64)})${where} with these arguments? ` +
      `${neutralizeText(args, ARGUMENTS_SHOWN + 64)}. The same request waits in the browser's side panel; ` +
      `the first answer decides. It expires in ${seconds} s.`,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          description: 'Allow this one call, or deny it',
          oneOf: [
            { const: 'allow_once', title: 'Allow once' },
            ...(request.flow
              ? [
                  {
                    const: 'allow_always',
                    title: `Always allow ${pairsOf(request.flow)} for ${neutralizeText(request.client, 64)}`,
                  },
                ]
              : []),
            { const: 'deny', title: 'Deny' },
          ],
        },
      },
      required: ['decision'],
    },
  }
}

/**
 * The decision in an elicitation result: accept with allow_once allows, accept with deny or decline
 * denies; cancel (the user dismissed it) or anything malformed decides nothing, so the side panel
 * still can.
 */
export function decisionOf(result: unknown): ClientDecision | undefined {
  if (typeof result !== 'object' || result === null) return undefined
  const { action, content } = result as { action?: unknown; content?: unknown }
  if (action === 'decline') return 'deny'
  if (action !== 'accept' || typeof content !== 'object' || content === null) return undefined
  const decision = (content as { decision?: unknown }).decision
  return decision === 'allow_once' || decision === 'allow_always' || decision === 'deny'
    ? decision
    : undefined
}

/**
 * `requestState` of an `input_required` result: names the waiting call and its client, signed with
 * a key that lives as long as the daemon, so a client cannot point its answer at another's call.
 */
export function createRequestStates(key: Buffer = randomBytes(32)) {
  const sign = (body: string) => createHmac('sha256', key).update(body).digest('base64url')
  return {
    issue(state: { call: string; client: string; tool: string }): string {
      const body = Buffer.from(JSON.stringify(state)).toString('base64url')
      return `${body}.${sign(body)}`
    },
    /** The state, if it is ours and untouched; undefined otherwise. */
    read(text: unknown): { call: string; client: string; tool: string } | undefined {
      if (typeof text !== 'string' || text.length > 2048) return undefined
      const [body, mac, extra] = text.split('.')
      if (!body || !mac || extra !== undefined) return undefined
      const expected = Buffer.from(sign(body))
      const given = Buffer.from(mac)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
      try {
        const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>
        if (
          typeof state.call !== 'string' ||
          typeof state.client !== 'string' ||
          typeof state.tool !== 'string'
        )
          return undefined
        return { call: state.call, client: state.client, tool: state.tool }
      } catch {
        return undefined
      }
    },
  }
}
export type RequestStates = ReturnType<typeof createRequestStates>

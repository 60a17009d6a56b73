/**
 * The MCP `instructions` bridge gives an agent (the `initialize` result, and `server/discover` in
 * 2026-07-28): every tool is off until the person turns it on, so an agent that lists no tool is told
 * why and what to ask for, instead of concluding that bridge has none.
 */

/** Where the person turns tools on: the side panel's own words (extension/sidepanel). */
export const TURN_ON_HINT =
  'the person turns them on in the bridge side panel (the bridge icon in Chrome\'s toolbar: each tool\'s switch, or "Turn on core browser tools")'

/** The instructions for a client whose `tools/list` is `listedJson` (`{"tools":[...]}`). */
export function serverInstructions(listedJson: string): string {
  const none = (JSON.parse(listedJson) as { tools?: unknown[] }).tools?.length === 0
  return none
    ? `bridge works in the person's own browser, but no tools are on yet: every tool is off until ${TURN_ON_HINT}. Ask them to turn on the tools you need; the tool list changes (notifications/tools/list_changed) as soon as they do.`
    : `bridge works in the person's own logged-in browser. Tools that are not listed are off: ${TURN_ON_HINT}.`
}

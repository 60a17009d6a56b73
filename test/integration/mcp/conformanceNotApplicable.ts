/**
 * The conformance checks that do not apply to bridge, each with its reason. The suite is written
 * against its own reference server ("everything server"): many scenarios call that server's fixture
 * tools (`test_image_content`, `test_tool_with_elicitation`, ...) or its prompts and resources.
 * bridge offers tools only (its own browser tools and the user's plugins), no prompts, resources or
 * completions, and its tools never ask the client for sampling, roots or free-form input. A check
 * listed here must fail: when it starts passing, the conformance test says so and it comes off.
 */
import type { Revision } from '../../helpers/conformance'

export interface NotApplicable {
  scenario: string
  /** One check of the scenario; absent: every failing check of it. */
  check?: string
  reason: string
  /** Only for this revision; absent: both. */
  revision?: Revision
}

const NO_PROMPTS = 'bridge offers no prompts (tools only)'
const NO_RESOURCES = 'bridge offers no resources (tools only)'
const FIXTURE_TOOL =
  "calls the suite's reference fixture tool, which bridge does not have: its tools are the browser's and the user's plugins'"
const NO_SERVER_REQUESTS =
  "needs a fixture tool that asks the client for sampling, roots or form input; bridge's tools never do (its one question to a client, an approval, is covered by our own protocol tests)"

const LIST: NotApplicable[] = [
  {
    scenario: 'completion-complete',
    reason: 'bridge offers no completions (no prompts or resource templates to complete)',
  },
  {
    scenario: 'dns-rebinding-protection',
    check: 'localhost-host-valid-accepted',
    reason:
      'the suite sends a browser Origin (http://localhost:<port>) and expects it accepted; bridge refuses every browser Origin but its own extension (SPEC.md Authentication 6), which is what keeps web pages out',
  },
  ...[
    'prompts-list',
    'prompts-get-simple',
    'prompts-get-with-args',
    'prompts-get-embedded-resource',
    'prompts-get-with-image',
  ].map((scenario) => ({ scenario, reason: NO_PROMPTS })),
  ...['resources-list', 'resources-read-text', 'resources-read-binary', 'resources-templates-read'].map(
    (scenario) => ({ scenario, reason: NO_RESOURCES }),
  ),
  ...['resources-subscribe', 'resources-unsubscribe'].map((scenario) => ({
    scenario,
    reason: NO_RESOURCES,
    revision: '2025-11-25' as const,
  })),
  ...[
    'tools-call-image',
    'tools-call-audio',
    'tools-call-embedded-resource',
    'tools-call-mixed-content',
    'tools-call-with-progress',
  ].map((scenario) => ({ scenario, reason: FIXTURE_TOOL })),
  { scenario: 'tools-call-with-logging', reason: FIXTURE_TOOL, revision: '2025-11-25' },
  ...[
    'tools-call-sampling',
    'tools-call-elicitation',
    'elicitation-sep1034-defaults',
    'elicitation-sep1330-enums',
  ].map((scenario) => ({ scenario, reason: NO_SERVER_REQUESTS, revision: '2025-11-25' as const })),
  ...[
    ['sep-2549-prompts-list-caching-hints', NO_PROMPTS],
    ['sep-2549-resources-list-caching-hints', NO_RESOURCES],
    ['sep-2549-resources-templates-list-caching-hints', NO_RESOURCES],
  ].map(([check, reason]) => ({
    scenario: 'caching',
    check,
    reason: reason ?? '',
    revision: '2026-07-28' as const,
  })),
  ...['sep-2575-server-rejects-undeclared-capability', 'sep-2575-missing-capability-http-400'].map(
    (check) => ({
      scenario: 'server-stateless',
      check,
      reason:
        "probes the suite's fixture tool test_missing_capability; no bridge tool needs a client capability (an approval the client cannot show is asked in the side panel)",
      revision: '2026-07-28' as const,
    }),
  ),
  ...[
    'input-required-result-basic-elicitation',
    'input-required-result-basic-sampling',
    'input-required-result-basic-list-roots',
    'input-required-result-request-state',
    'input-required-result-multiple-input-requests',
    'input-required-result-multi-round',
    'input-required-result-result-type',
    'input-required-result-tampered-state',
    'input-required-result-capability-check',
  ].map((scenario) => ({ scenario, reason: NO_SERVER_REQUESTS, revision: '2026-07-28' as const })),
  { scenario: 'input-required-result-non-tool-request', reason: NO_PROMPTS, revision: '2026-07-28' },
]

export function notApplicable(revision: Revision): NotApplicable[] {
  return LIST.filter((entry) => entry.revision === undefined || entry.revision === revision)
}

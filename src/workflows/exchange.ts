/**
 * Workflows to and from other tools' formats: the Chrome DevTools Recorder's user flow JSON (what
 * Chrome's Recorder panel opens and `@puppeteer/replay` runs), and a Playwright test. Both exports
 * carry values, not variables: each variable's given value or its default; a secret without a given
 * value is exported empty and named in `warnings`. Steps those formats cannot say are left out and
 * named too.
 */
import type { Step, Target } from '../protocol/workflow'
import { WORKFLOW_FORMAT_VERSION, type Variable, type Workflow } from './format'
import { resolvePlan } from './plan'
import { urlWithoutQuery } from './postCondition'

export interface Exported {
  text: string
  warnings: string[]
}

function valuesFor(
  workflow: Workflow,
  given: Record<string, string>,
  warnings: string[],
): Record<string, string> {
  const values: Record<string, string> = {}
  for (const v of workflow.variables) {
    if (given[v.name] !== undefined) values[v.name] = given[v.name]!
    else if (v.default !== undefined) values[v.name] = v.default
    else {
      values[v.name] = ''
      warnings.push(`the secret ${v.name} is exported empty: give it with --var ${v.name}=...`)
    }
  }
  return values
}

/** Recorder selectors, best first: aria (name), CSS, XPath, text. */
function selectorsOf(target: Target): string[][] {
  const out: string[][] = []
  if (target.name) out.push([`aria/${target.name}${target.role ? `[role="${target.role}"]` : ''}`])
  if (target.testId) out.push([`[data-testid="${target.testId.replace(/"/g, '\\"')}"]`])
  if (target.css) out.push([target.css])
  if (target.xpath) out.push([`xpath/${target.xpath}`])
  if (target.text) out.push([`text/${target.text}`])
  return out
}

/** A Recorder expression true once the top document shows `text` (read back by `fromRecorder`). */
const waitExpression = (text: string) => `document.body?.innerText.includes(${JSON.stringify(text)})`
const WAIT_EXPRESSION = /^document\.body\?\.innerText\.includes\(("(?:[^"\\]|\\.)*")\)$/

/** The Chrome DevTools Recorder user flow. */
export function toRecorder(workflow: Workflow, given: Record<string, string> = {}): Exported {
  const warnings: string[] = []
  const plan = resolvePlan(workflow, valuesFor(workflow, given, warnings))
  if (!plan.ok) throw new Error(plan.message)
  const steps: Record<string, unknown>[] = [
    {
      type: 'setViewport',
      width: 1280,
      height: 800,
      deviceScaleFactor: 1,
      isMobile: false,
      hasTouch: false,
      isLandscape: false,
    },
  ]
  for (const step of plan.value.steps) {
    // Recorder frames are child-frame positions; a recorded frame path is one frame deep here.
    const frame = step.target?.frame?.length ? { frame: step.target.frame.map(() => 0) } : {}
    const at = step.target ? { target: 'main', selectors: selectorsOf(step.target), ...frame } : undefined
    // A navigation is awaited on the event that causes it: a key's navigation starts on its keyDown.
    const navigation =
      step.post?.url !== undefined
        ? { assertedEvents: [{ type: 'navigation', url: step.post.url, title: step.post.title ?? '' }] }
        : {}
    switch (step.action) {
      case 'navigate':
        steps.push({ type: 'navigate', url: step.url, ...navigation })
        break
      case 'click':
        if (at) steps.push({ type: 'click', ...at, offsetX: 1, offsetY: 1, ...navigation })
        break
      case 'type':
        if (at) steps.push({ type: 'change', ...at, value: step.text ?? '' })
        if (at && step.submit)
          steps.push(
            { type: 'keyDown', target: 'main', key: 'Enter', ...navigation },
            { type: 'keyUp', target: 'main', key: 'Enter' },
          )
        break
      case 'select':
        if (at) steps.push({ type: 'change', ...at, value: step.values?.[0] ?? '' })
        break
      case 'fill':
        // A checkbox's state is set by a click only when it differs, which a flow cannot say.
        if (at && step.checked === undefined) steps.push({ type: 'change', ...at, value: step.text ?? '' })
        else warnings.push(`step ${step.index} (a checkbox's state) has no Recorder step and is left out`)
        break
      case 'press':
        if (step.key && !step.key.includes('+'))
          steps.push(
            { type: 'keyDown', target: 'main', key: step.key, ...navigation },
            { type: 'keyUp', target: 'main', key: step.key },
          )
        else warnings.push(`step ${step.index}: the key combination ${step.key ?? ''} is left out`)
        break
      case 'scroll':
        steps.push({
          type: 'scroll',
          target: 'main',
          x: 0,
          y: step.direction === 'up' ? -(step.amount ?? 500) : (step.amount ?? 500),
        })
        break
      case 'wait':
        // An expression, not waitForElement: a wait often spans a navigation (a dialog answered, a form
        // posted by script), and a replayer's element poll fails when the page it polls goes away.
        steps.push({ type: 'waitForExpression', target: 'main', expression: waitExpression(step.text ?? '') })
        break
      case 'dialog': {
        warnings.push(`step ${step.index} (dialog) has no Recorder step and is left out`)
        // What answering the dialog led to follows, for the replayer, from the step that opened it.
        const opener = steps.at(-1)
        if (navigation.assertedEvents && opener && !opener.assertedEvents && opener.type !== 'navigate')
          Object.assign(opener, navigation)
        break
      }
      default:
        warnings.push(`step ${step.index} (${step.action}) has no Recorder step and is left out`)
    }
  }
  return {
    text: `${JSON.stringify({ title: workflow.description || workflow.name, steps }, null, 2)}\n`,
    warnings,
  }
}

const js = (s: unknown) => JSON.stringify(s)

function locatorOf(target: Target): string {
  const scope = (target.frame ?? []).reduce((out, css) => `${out}.frameLocator(${js(css)})`, 'page')
  if (target.testId) return `${scope}.getByTestId(${js(target.testId)})`
  if (target.role && target.name)
    return `${scope}.getByRole(${js(target.role)}, { name: ${js(target.name)}, exact: true })`
  if (target.label) return `${scope}.getByLabel(${js(target.label)}, { exact: true })`
  if (target.text) return `${scope}.getByText(${js(target.text)}, { exact: true })`
  return `${scope}.locator(${js(target.css ?? `xpath=${target.xpath ?? ''}`)})`
}

/** A Playwright test (`@playwright/test`): secrets from environment variables, others as recorded. */
export function toPlaywright(workflow: Workflow): Exported {
  const warnings: string[] = []
  const env = (v: Variable) => `BRIDGE_${v.name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`
  const lines = [
    `import { expect, test } from '@playwright/test'`,
    '',
    `test(${js(workflow.description || workflow.name)}, async ({ page }) => {`,
  ]
  for (const v of workflow.variables)
    lines.push(`  const ${v.name} = process.env.${env(v)} ?? ${v.secret ? "''" : js(v.default ?? '')}`)
  const value = (text: string | undefined) =>
    `\`${(text ?? '')
      .replace(/[`\\]/g, (c) => `\\${c}`)
      .replace(/\$\{/g, '\\${')
      .replace(/\{\{([a-zA-Z][a-zA-Z0-9_]*)\}\}/g, '${$1}')}\``
  workflow.steps.forEach((step: Step, i) => {
    const at = step.target ? locatorOf(step.target) : 'page.locator(":focus")'
    if (step.post?.dialog) lines.push(`  page.once('dialog', (dialog) => dialog.accept())`)
    switch (step.action) {
      case 'navigate':
        lines.push(`  await page.goto(${value(step.url)})`)
        break
      case 'click':
        lines.push(`  await ${at}.click()`)
        break
      case 'type':
        lines.push(`  await ${at}.fill(${value(step.text)})`)
        if (step.submit) lines.push(`  await ${at}.press('Enter')`)
        break
      case 'select':
        lines.push(`  await ${at}.selectOption(${js(step.values ?? [])})`)
        break
      case 'fill':
        lines.push(
          step.checked === undefined
            ? `  await ${at}.fill(${value(step.text)})`
            : `  await ${at}.setChecked(${js(step.checked)})`,
        )
        break
      case 'drag':
        if (step.to) lines.push(`  await ${at}.dragTo(${locatorOf(step.to)})`)
        break
      case 'press':
        lines.push(`  await ${step.target ? at : 'page.keyboard'}.press(${js(step.key ?? '')})`)
        break
      case 'wait':
        lines.push(`  await expect(page.getByText(${value(step.text)}).first()).toBeVisible()`)
        break
      case 'dialog':
        break
      default:
        warnings.push(`step ${i + 1} (${step.action}) is left out`)
    }
    if (step.post?.url)
      lines.push(`  await expect.poll(() => page.url().replace(/[?#].*$/, '')).toBe(${value(step.post.url)})`)
    for (const text of step.post?.appeared ?? [])
      lines.push(`  await expect(page.getByText(${value(text)}).first()).toBeVisible()`)
  })
  lines.push('})', '')
  return { text: lines.join('\n'), warnings }
}

interface RecorderStep {
  type?: unknown
  url?: unknown
  value?: unknown
  key?: unknown
  expression?: unknown
  selectors?: unknown
  frame?: unknown
}

/** The target a Recorder step's selectors name. */
function targetOf(selectors: unknown): Target | undefined {
  if (!Array.isArray(selectors)) return undefined
  const target: Target = {}
  for (const group of selectors as unknown[]) {
    const first: unknown = Array.isArray(group) ? (group as unknown[])[0] : group
    if (typeof first !== 'string' || (Array.isArray(group) && group.length > 1)) continue
    if (first.startsWith('aria/')) {
      const m = /^aria\/(.*?)(?:\[role="([a-z]+)"\])?$/.exec(first)!
      target.name = m[1]!.slice(0, 300)
      if (m[2]) target.role = m[2]
    } else if (first.startsWith('xpath/')) target.xpath ??= first.slice(6, 2006)
    else if (first.startsWith('text/')) target.text ??= first.slice(5, 305)
    else if (first.startsWith('pierce/')) continue
    else target.css ??= first.slice(0, 2000)
  }
  // An aria selector without a role matches by name only, which the ladder cannot: it is the label.
  if (target.name && !target.role) {
    target.label = target.name
    delete target.name
  }
  return Object.keys(target).length ? target : undefined
}

/** A Recorder user flow as a workflow (off, like every new one); values typed become variables. */
export function fromRecorder(json: unknown, name: string, now = new Date().toISOString()): Workflow {
  const flow = json as { title?: unknown; steps?: unknown }
  if (!flow || typeof flow !== 'object' || !Array.isArray(flow.steps))
    throw new Error('this is not a Recorder user flow: it has no "steps" list')
  const steps: Step[] = []
  const variables: Variable[] = []
  for (const raw of flow.steps as RecorderStep[]) {
    const target = targetOf(raw.selectors)
    const inFrame =
      target && Array.isArray(raw.frame) && raw.frame.length
        ? { ...target, frame: raw.frame.map(() => 'iframe') }
        : target
    switch (raw.type) {
      case 'navigate':
        if (typeof raw.url === 'string')
          steps.push({ action: 'navigate', url: raw.url, post: { url: urlWithoutQuery(raw.url) ?? raw.url } })
        break
      case 'click':
      case 'doubleClick':
        if (inFrame) steps.push({ action: 'click', target: inFrame })
        break
      case 'change': {
        if (!inFrame) break
        const varName = `value${variables.length + 1}`
        variables.push({
          name: varName,
          secret: false,
          default: (typeof raw.value === 'string' ? raw.value : '').slice(0, 20_000),
        })
        steps.push({ action: 'type', target: inFrame, text: `{{${varName}}}` })
        break
      }
      case 'keyDown':
        if (typeof raw.key === 'string') steps.push({ action: 'press', key: raw.key.slice(0, 60) })
        break
      case 'waitForExpression': {
        const quoted =
          typeof raw.expression === 'string' ? WAIT_EXPRESSION.exec(raw.expression)?.[1] : undefined
        if (quoted) steps.push({ action: 'wait', text: (JSON.parse(quoted) as string).slice(0, 300) })
        break
      }
      case 'waitForElement':
        if (inFrame?.text) steps.push({ action: 'wait', text: inFrame.text })
        break
      default:
      // setViewport, keyUp, scroll and the rest say nothing a replay needs.
    }
  }
  return {
    version: WORKFLOW_FORMAT_VERSION,
    name,
    description: typeof flow.title === 'string' ? flow.title.slice(0, 1000) : '',
    permission: 'off',
    recordedBy: 'import',
    createdAt: now,
    updatedAt: now,
    variables,
    steps,
    history: [],
  }
}

/**
 * Plugin icons are SVG markup shown in the side panel. They come from package authors, so each one is
 * parsed (src/plugins/xmlTokens.ts, strict XML) and checked against an allow-list before it is
 * accepted, at build and again at discovery: SVG shape, paint and gradient elements only, with their
 * geometry and presentation attributes. No script, no event handler, no foreignObject, no external
 * reference (`href` only to a `#fragment` of the icon, `url()` only to `#fragment`), no style element
 * that imports or escapes, nothing larger than 32 KB. A discovered plugin whose icon is refused loads
 * without it, and discovery says why.
 */
import { tokenizeXml } from './xmlTokens'

export const ICON_SVG_MAX_BYTES = 32 * 1024
const MAX_DEPTH = 32

const SVG_NS = 'http://www.w3.org/2000/svg'
const XLINK_NS = 'http://www.w3.org/1999/xlink'

const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'title', 'desc', 'symbol', 'use',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'style',
  'filter', 'feGaussianBlur', 'feOffset', 'feBlend', 'feColorMatrix', 'feFlood', 'feComposite',
  'feMerge', 'feMergeNode', 'feMorphology', 'feDropShadow',
]) // prettier-ignore

const ATTRIBUTES = new Set([
  'id', 'class', 'style', 'xmlns', 'xmlns:xlink', 'version', 'viewBox', 'preserveAspectRatio',
  'width', 'height', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr',
  'd', 'points', 'pathLength', 'transform', 'href', 'xlink:href',
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-linecap', 'stroke-linejoin',
  'stroke-miterlimit', 'stroke-dasharray', 'stroke-dashoffset', 'stroke-opacity', 'opacity', 'color',
  'clip-path', 'clip-rule', 'mask', 'filter', 'visibility', 'display', 'vector-effect',
  'shape-rendering', 'paint-order', 'offset', 'stop-color', 'stop-opacity',
  'gradientUnits', 'gradientTransform', 'spreadMethod', 'patternUnits', 'patternContentUnits',
  'patternTransform', 'clipPathUnits', 'maskUnits', 'maskContentUnits', 'filterUnits',
  'primitiveUnits', 'stdDeviation', 'dx', 'dy', 'in', 'in2', 'result', 'mode', 'operator',
  'k1', 'k2', 'k3', 'k4', 'values', 'type', 'radius', 'flood-color', 'flood-opacity',
  'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline',
  'letter-spacing', 'textLength', 'lengthAdjust', 'xml:space', 'role', 'aria-label',
  'aria-hidden', 'focusable',
]) // prettier-ignore

const FRAGMENT = /^#[A-Za-z_][A-Za-z0-9_.:-]*$/
/** `url(#id)`, `url('#id')`, `url("#id")`: the only url() an icon may contain. */
const LOCAL_URL = /^url\(\s*(['"]?)#[A-Za-z_][A-Za-z0-9_.:-]*\1\s*\)/i

/** Why a piece of CSS (a style attribute, a style element, a paint value) is refused, if it is. */
function cssProblem(css: string, where: string): string | undefined {
  if (css.includes('\\')) return `${where} contains a CSS escape`
  if (/@/.test(css)) return `${where} contains an @-rule (such as @import)`
  if (/expression\s*\(|javascript:|behavior\s*:|-moz-binding/i.test(css))
    return `${where} contains script in CSS`
  if (/image-set\s*\(|image\s*\(|cross-fade\s*\(|element\s*\(|src\s*\(/i.test(css))
    return `${where} refers to an image`
  for (let i = css.toLowerCase().indexOf('url('); i >= 0; i = css.toLowerCase().indexOf('url(', i + 4))
    if (!LOCAL_URL.test(css.slice(i)))
      return `${where} refers to something outside the icon (url() other than #id)`
  return undefined
}

function attributeProblem(element: string, name: string, value: string): string | undefined {
  const where = `the attribute ${name} of <${element}>`
  if (/^on/i.test(name)) return `it has an event handler (${name} on <${element}>)`
  if (!ATTRIBUTES.has(name)) return `${where} is not allowed`
  if (name === 'href' || name === 'xlink:href')
    return FRAGMENT.test(value)
      ? undefined
      : `${where} refers to something outside the icon (only #id is allowed)`
  if (name === 'xmlns') return value === SVG_NS ? undefined : `${where} is not the SVG namespace`
  if (name === 'xmlns:xlink') return value === XLINK_NS ? undefined : `${where} is not the XLink namespace`
  return cssProblem(value, where)
}

/**
 * Why the markup is not an acceptable icon, or undefined when it is.
 *
 * @example
 *   iconSvgProblem('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h8"/></svg>') // undefined
 *   iconSvgProblem('<svg onload="x()"/>') // 'it has an event handler (onload on <svg>)'
 */
export function iconSvgProblem(svg: string): string | undefined {
  if (new TextEncoder().encode(svg).length > ICON_SVG_MAX_BYTES)
    return `the icon is larger than ${ICON_SVG_MAX_BYTES / 1024} KB`
  const parsed = tokenizeXml(svg)
  if (!parsed.ok) return `the icon is not plain SVG: ${parsed.reason}`
  const open: string[] = []
  let roots = 0
  for (const token of parsed.tokens) {
    if (token.kind === 'text') {
      if (open.length === 0 && token.text.trim() !== '') return 'the icon has text outside its <svg> element'
      if (open.at(-1) === 'style') {
        const problem = cssProblem(token.text, 'a <style> element')
        if (problem) return `the icon is not plain SVG: ${problem}`
      }
      continue
    }
    if (token.kind === 'close') {
      if (open.pop() !== token.name)
        return `the icon is not plain SVG: </${token.name}> does not close the open element`
      continue
    }
    const { name } = token
    if (open.length === 0) {
      if (name !== 'svg') return 'the icon is not SVG markup (its root element is not <svg>)'
      if (++roots > 1) return 'the icon has more than one root element'
    }
    if (name === 'script') return 'the icon is not plain SVG: it contains a <script> element'
    if (name === 'foreignObject') return 'the icon is not plain SVG: it contains a <foreignObject> element'
    if (!ELEMENTS.has(name)) return `the icon is not plain SVG: the element <${name}> is not allowed`
    if (open.at(-1) === 'style') return 'the icon is not plain SVG: a <style> element contains markup'
    for (const [attribute, value] of token.attributes) {
      const problem = attributeProblem(name, attribute, value)
      if (problem) return `the icon is not plain SVG: ${problem}`
    }
    if (!token.selfClosing) open.push(name)
    if (open.length > MAX_DEPTH) return `the icon nests elements more than ${MAX_DEPTH} deep`
  }
  if (roots === 0) return 'the icon is not SVG markup (no <svg> element)'
  if (open.length > 0) return `the icon is not plain SVG: <${open.at(-1) ?? ''}> is not closed`
  return undefined
}

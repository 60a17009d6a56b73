/**
 * Plugin icons are SVG markup shown in the side panel. They come from package authors, so anything
 * that could run code (scripts, event handlers, javascript: links, foreign objects) is refused here,
 * at build and again at discovery, on top of the extension rendering them as images.
 */
export const ICON_SVG_MAX_BYTES = 32 * 1024

const ACTIVE_CONTENT = [
  /<script/i,
  /<foreignObject/i,
  /<iframe/i,
  /<embed/i,
  /<object/i,
  /\son[a-z]+\s*=/i,
  /javascript:/i,
  /<!ENTITY/i,
]

/** Why the markup is not an acceptable icon, or undefined when it is. */
export function iconSvgProblem(svg: string): string | undefined {
  if (new TextEncoder().encode(svg).length > ICON_SVG_MAX_BYTES)
    return `the icon is larger than ${ICON_SVG_MAX_BYTES / 1024} KB`
  if (!/<svg[\s>/]/i.test(svg)) return 'the icon is not SVG markup (no <svg> element)'
  const active = ACTIVE_CONTENT.find((re) => re.test(svg))
  if (active)
    return `the icon contains active content (${active.source.replaceAll('\\s', ' ')}); icons must be plain SVG`
  return undefined
}

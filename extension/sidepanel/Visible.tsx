import { visibleSegments } from '../lib/visibleText'

/**
 * Text from agents and pages (client names, arguments, tab titles and URLs): every control, format and
 * bidi character shown as a marker in its own element, so nothing can reorder or hide what is read.
 */
export function Visible({ text }: { text: string }) {
  return (
    <>
      {visibleSegments(text).map((s, i) =>
        s.marker ? (
          <span class="invisible-char" key={i} data-testid="invisible-char">
            {s.text}
          </span>
        ) : (
          s.text
        ),
      )}
    </>
  )
}

/**
 * A message that names commands between backticks (the daemon's and the connection's texts are
 * written for terminals and the panel alike): in the panel each command is a `<code>` element, so no
 * raw backtick is shown. Text only: nothing in the message becomes markup.
 *
 * @example
 *   <CommandText text="Start it with `bridge start`." />
 */
export function CommandText({ text }: { text: string }) {
  const parts = text.split('`')
  // An odd count of backticks leaves the last one unpaired: it is kept as text.
  const paired = parts.length % 2 === 1 ? parts.length : parts.length - 1
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 && i < paired ? <code key={i}>{part}</code> : i >= paired ? `\`${part}` : part,
      )}
    </>
  )
}

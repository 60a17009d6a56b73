/**
 * Writes of the uws engine, made once uWS has let go of the socket it is serving. uWS corks one
 * socket at a time: while it runs a callback for one socket (a `/ws` message, a request's body) that
 * socket stays corked, and the promise jobs run inside that callback. A write from one of them to
 * another socket (the answer to an MCP request, a `tool.dispatch` frame) cannot cork: uWS sends each
 * piece of it as it comes, the status line, every header name, ": ", value and "\r\n" in a send of
 * its own (27 sends for one JSON answer, each waking the client). Queued here and made in
 * `setImmediate` (the same turn of the event loop, after uWS's callback returned and it uncorked),
 * each write runs under its own cork and leaves in one send.
 */
const queue: (() => void)[] = []

function flush(): void {
  // Writes queued while flushing (a frame sent from a write's own effects) run in this same flush.
  for (let i = 0; i < queue.length; i++) queue[i]!()
  queue.length = 0
}

/** Runs `write` once the event loop is out of uWS's current callback (this turn, in order). */
export function writeSoon(write: () => void): void {
  if (queue.push(write) === 1) setImmediate(flush)
}

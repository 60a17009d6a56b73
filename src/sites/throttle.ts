/**
 * At most one run of `fn` per `intervalMs`: the first call runs at once, calls during the interval run
 * once at its end. A page that registers and drops tools in a loop cannot make bridge flood every
 * agent with `notifications/tools/list_changed`.
 */
export function throttle(intervalMs: number, fn: () => void): { (): void; cancel(): void } {
  let last = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const run = () => {
    timer = undefined
    last = Date.now()
    fn()
  }
  const call = () => {
    if (timer) return
    const wait = last + intervalMs - Date.now()
    if (wait <= 0) run()
    else {
      timer = setTimeout(run, wait)
      timer.unref?.()
    }
  }
  call.cancel = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
  }
  return call
}

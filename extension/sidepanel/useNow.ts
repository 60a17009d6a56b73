import { useEffect, useState } from 'preact/hooks'

/** The time now, refreshed every `intervalMs`: for "21s ago" labels that keep counting while the panel is open. */
export function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs)
    return () => clearInterval(timer)
  }, [intervalMs])
  return now
}

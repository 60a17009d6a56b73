import { describe, expect, it } from 'vitest'
import { oneAtATime } from '../../../src/ws/registryMethods'

describe('oneAtATime', () => {
  it('runs work in call order, never two at once, and goes on after a failure', async () => {
    const queue = oneAtATime()
    const events: string[] = []
    let running = 0
    const job = (name: string, ms: number, fail = false) =>
      queue(async () => {
        running++
        events.push(`start ${name} (${running} running)`)
        await new Promise((r) => setTimeout(r, ms))
        running--
        events.push(`end ${name}`)
        if (fail) throw new Error(`${name} failed`)
        return name
      })
    const results = await Promise.allSettled([job('a', 30), job('b', 5, true), job('c', 1)])
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'b failed',
      'c',
    ])
    expect(events).toEqual([
      'start a (1 running)',
      'end a',
      'start b (1 running)',
      'end b',
      'start c (1 running)',
      'end c',
    ])
  })
})

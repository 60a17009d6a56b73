import { describe, expect, it } from 'vitest'
import { collapse, formatParams, timeLeft } from '../../../extension/sidepanel/format'

describe('approval formatting', () => {
  it('formats the whole arguments, however long', () => {
    const body = 'x'.repeat(50_000)
    const text = formatParams({ body })
    expect(text.length).toBeGreaterThan(50_000)
    expect(JSON.parse(text)).toEqual({ body })
  })

  it('leaves text that fits a screen whole', () => {
    expect(collapse('a\nb\nc', 30, 2000)).toEqual({ shown: 'a\nb\nc', hiddenChars: 0, hiddenLines: 0 })
  })

  it('cuts at the line limit and says how many lines and characters are left', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`)
    const cut = collapse(lines.join('\n'), 30, 2000)
    expect(cut.shown).toBe(lines.slice(0, 30).join('\n'))
    expect(cut.hiddenLines).toBe(20)
    expect(cut.shown.length + cut.hiddenChars).toBe(lines.join('\n').length)
  })

  it('cuts one long line at the character limit without splitting a surrogate pair', () => {
    const cut = collapse(`${'a'.repeat(9)}😀tail`, 30, 10)
    expect(cut.shown).toBe('a'.repeat(9))
    expect(cut.hiddenChars).toBe('😀tail'.length)
    expect(cut.hiddenLines).toBe(1)
  })

  it('shows the time left as m:ss, h:mm:ss for long waits, and 0:00 once passed', () => {
    expect(timeLeft(1_000 + 299_500, 1_000)).toBe('5:00')
    expect(timeLeft(61_000, 0)).toBe('1:01')
    expect(timeLeft(3_725_000, 0)).toBe('1:02:05')
    expect(timeLeft(0, 5_000)).toBe('0:00')
  })
})

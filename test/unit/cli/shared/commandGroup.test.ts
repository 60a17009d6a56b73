import { describe, expect, it } from 'vitest'
import { commandGroupArgs } from '../../../../cli/shared/commandGroup'

const GROUPS = ['plugin', 'config', 'client', 'site', 'workflow'] as const

describe('commandGroupArgs', () => {
  it.each(GROUPS)('hands `%s` the words after its name', (group) => {
    expect(commandGroupArgs([group, 'list', '--json'], GROUPS)).toEqual({ group, args: ['list', '--json'] })
  })

  it.each(GROUPS)('moves a global --port given before `%s` after its words, in both spellings', (group) => {
    expect(commandGroupArgs(['--port', '9600', group, 'list'], GROUPS)).toEqual({
      group,
      args: ['list', '--port', '9600'],
    })
    expect(commandGroupArgs(['--port=9601', group, 'list'], GROUPS)).toEqual({
      group,
      args: ['list', '--port=9601'],
    })
  })

  it.each(GROUPS)("lets `%s`'s own --port win over the global one", (group) => {
    expect(commandGroupArgs(['--port', '9600', group, 'list', '--port', '9700'], GROUPS)?.args).toEqual([
      'list',
      '--port',
      '9700',
    ])
    expect(commandGroupArgs(['--port=9600', group, 'list', '--port=9700'], GROUPS)?.args).toEqual([
      'list',
      '--port=9700',
    ])
  })

  it('leaves every other command to the main parser', () => {
    expect(commandGroupArgs(['status', '--port', '9600'], GROUPS)).toBeUndefined()
    expect(commandGroupArgs(['--port', '9600', 'status'], GROUPS)).toBeUndefined()
    expect(commandGroupArgs(['--port'], GROUPS)).toBeUndefined()
    expect(commandGroupArgs(['--json', 'plugin'], GROUPS)).toBeUndefined()
    expect(commandGroupArgs([], GROUPS)).toBeUndefined()
  })
})

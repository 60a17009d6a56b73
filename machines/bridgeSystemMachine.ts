/**
 * The root of the daemon's actor system. It owns the long-lived actors, each under a `systemId`
 * (`system.get('configStore')`). Later concerns (extension connection, reload, sessions) are added
 * here as more invoked children; the daemon provides their effects with `.provide()`.
 */
import { setup } from 'xstate'
import { configStoreMachine, type ConfigDocument } from './configStoreMachine'
import { reloadMachine } from './reloadMachine'

export const bridgeSystemMachine = setup({
  types: {
    input: {} as { config: ConfigDocument },
    context: {} as { initialConfig: ConfigDocument },
    events: {} as { type: 'system.stop' },
  },
  actors: { configStore: configStoreMachine, reload: reloadMachine },
}).createMachine({
  id: 'bridgeSystem',
  context: ({ input }) => ({ initialConfig: input.config }),
  initial: 'running',
  states: {
    running: {
      invoke: [
        {
          id: 'configStore',
          systemId: 'configStore',
          src: 'configStore',
          input: ({ context }) => ({ config: context.initialConfig }),
        },
        { id: 'reload', systemId: 'reload', src: 'reload' },
      ],
      on: { 'system.stop': 'stopped' },
    },
    stopped: { type: 'final' },
  },
})

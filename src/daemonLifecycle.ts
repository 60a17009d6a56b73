/**
 * How the daemon starts listening and how it stops, around the parts src/daemon.ts wires (which also
 * says in which order they are released). A daemon that cannot listen (port in use) releases what
 * already started, so its caller can exit; stopping drains the calls in flight first.
 */
import { waitFor, type Actor } from 'xstate'
import type { bridgeSystemMachine } from '../machines/bridgeSystemMachine'
import type { DaemonFront } from './http/daemonFront'
import type { HttpEngine } from './http/engine'
import type { InspectorHandle } from './machineInspector'
import { detachLogFile, log } from './log'

const logger = log.withTag('daemon')

/** How long the last answers get to leave before the sessions and their streams close. */
const STOP_LINGER_MS = 200

export interface LifecycleParts {
  /** 0: a free port. */
  port: number
  root: Actor<typeof bridgeSystemMachine>
  front: Pick<DaemonFront, 'listen'> & { readonly engine: Pick<HttpEngine, 'stop'> }
  inspector: Pick<InspectorHandle, 'stop'> | undefined
  /** Ends the daemon's parts, in the order they must end; then the engine and the root stop. */
  release(): Promise<void>
}

export interface Listening {
  readonly port: number
  /** Drains the calls in flight, releases every part, stops the engine and the root. */
  stop: () => Promise<void>
}

export async function startListening(parts: LifecycleParts): Promise<Listening> {
  const { root, front } = parts
  const release = async (listening: boolean) => {
    await parts.release()
    if (listening) await front.engine.stop()
    root.send({ type: 'system.stop' })
    root.stop()
    parts.inspector?.stop()
  }
  let port: number
  try {
    port = await front.listen(parts.port)
  } catch (error) {
    // Could not listen (port in use): release everything already started so the caller can exit.
    await release(false)
    detachLogFile()
    throw error
  }
  return {
    port,
    async stop() {
      // Draining (machines/bridgeSystemMachine.ts): calls in flight finish or fail with shutting_down,
      // each recording its audit entry and answering before its session closes.
      root.send({ type: 'system.drain' })
      await waitFor(root, (snapshot) => snapshot.matches({ live: 'drained' }))
      // Let the last answers leave before the sessions and their streams close.
      await new Promise((resolve) => setTimeout(resolve, STOP_LINGER_MS))
      await release(true)
      logger.info('bridge stopped')
      detachLogFile()
    },
  }
}

/**
 * The one typed registry of the actor system: every lookup of an actor by its `systemId` goes through
 * a function here (`configStoreOf(system)`), so no call site casts `system.get(...)`. A lookup takes
 * the `system` XState hands an effect (`({ system }) => ...`) or the root actor's `.system`.
 */
import type { ActorRefFrom, AnyActorRef } from 'xstate'
import type { configStoreMachine } from './configStoreMachine'
import type { extensionConnectionMachine } from './extensionConnectionMachine'
import type { pluginTabMachine } from './pluginTabMachine'
import type { reloadMachine } from './reloadMachine'
import type { ToolInvocationRef } from './toolInvocationTypes'

/** What a lookup needs of an actor system: XState's `ActorSystem`, or the root actor's `.system`. */
export interface SystemLookup {
  get(systemId: string): AnyActorRef | undefined
}

/** The systemId of a spawned child: `pluginTab:<plugin>`, `toolInvocation:<uuid>`. */
export const systemIdOf = (kind: 'pluginTab' | 'toolInvocation', key: string): string => `${kind}:${key}`

/** The long-lived actors the root starts with: always present while the root runs. */
export const configStoreOf = (system: SystemLookup): ActorRefFrom<typeof configStoreMachine> | undefined =>
  system.get('configStore')

export const reloadOf = (system: SystemLookup): ActorRefFrom<typeof reloadMachine> | undefined =>
  system.get('reload')

export const extensionConnectionOf = (
  system: SystemLookup,
): ActorRefFrom<typeof extensionConnectionMachine> | undefined => system.get('extensionConnection')

/** A plugin's tab actor; undefined once the plugin is gone (or before it was loaded). */
export const pluginTabOf = (
  system: SystemLookup,
  plugin: string,
): ActorRefFrom<typeof pluginTabMachine> | undefined => system.get(systemIdOf('pluginTab', plugin))

/** A call's actor; the id may come from the extension, so it may name nothing. */
export const toolInvocationOf = (system: SystemLookup, invocationId: string): ToolInvocationRef | undefined =>
  system.get(systemIdOf('toolInvocation', invocationId))

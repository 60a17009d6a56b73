/**
 * The daemon's one handler table for /ws requests: every request the extension may send (role
 * `extension` in src/protocol `WsMethods`) has exactly one handler here, typed by its params and
 * result. A method added to src/protocol without a handler is a type error in `createMethodHandlers`.
 */
import type { ClientRequests, RequestParams } from '../protocol'
import { createConfigMethods, type ConfigMethodsDeps } from './configMethods'
import { createFolderOpen, type FolderOpenDeps } from './folderOpen'
import type { MethodHandlers } from './methodHandler'
import { createRegistryMethods, type RegistryMethodsDeps } from './registryMethods'
import { createSiteMethods, type SiteMethodsDeps } from './siteMethods'

export { callMethod, type MethodHandler, type MethodHandlers } from './methodHandler'

export interface MethodDeps {
  config: ConfigMethodsDeps
  registry: RegistryMethodsDeps
  folders: FolderOpenDeps
  sites: SiteMethodsDeps
  /** `tab.stateChanged`: false when the plugin has no tab actor (not loaded). */
  tabStateChanged(params: RequestParams<typeof ClientRequests, 'tab.stateChanged'>): boolean
}

export function createMethodHandlers(deps: MethodDeps): MethodHandlers {
  return {
    'tab.stateChanged': (params) => Promise.resolve({ ok: deps.tabStateChanged(params) }),
    ...createConfigMethods(deps.config),
    ...createRegistryMethods(deps.registry),
    ...createSiteMethods(deps.sites),
    'folder.open': createFolderOpen(deps.folders),
  }
}

/**
 * The daemon's one handler table for /ws requests: every request the extension may send (role
 * `extension` in src/protocol `WsMethods`) has exactly one handler here, typed by its params and
 * result. A method added to src/protocol without a handler is a type error in `createMethodHandlers`.
 */
import type { ToolCatalog } from '../catalog/toolCatalog'
import type { Config } from '../config/schema'
import type { ClientRequests, RequestParams } from '../protocol'
import { createConfigMethods, type ConfigMethodsDeps } from './configMethods'
import { createFolderOpen, type FolderOpenDeps } from './folderOpen'
import type { MethodHandler, MethodHandlers } from './methodHandler'
import { createRegistryMethods, type RegistryMethodsDeps } from './registryMethods'
import { createSiteMethods, type SiteMethodsDeps } from './siteMethods'
import { createWorkflowMethods, type WorkflowMethodsDeps } from './workflowMethods'

export { callMethod, type MethodHandler, type MethodHandlers } from './methodHandler'

export interface MethodDeps {
  config: ConfigMethodsDeps
  registry: RegistryMethodsDeps
  folders: FolderOpenDeps
  sites: SiteMethodsDeps
  workflows: WorkflowMethodsDeps
  /** `tab.stateChanged`: false when the plugin has no tab actor (not loaded). */
  tabStateChanged(params: RequestParams<typeof ClientRequests, 'tab.stateChanged'>): boolean
  /** `workflow.toolStep`: a running workflow's tool step, called by the daemon (src/workflows). */
  workflowToolStep: MethodHandler<'workflow.toolStep'>
}

export function createMethodHandlers(deps: MethodDeps): MethodHandlers {
  return {
    'tab.stateChanged': (params) => Promise.resolve({ ok: deps.tabStateChanged(params) }),
    ...createConfigMethods(deps.config),
    ...createRegistryMethods(deps.registry),
    ...createSiteMethods(deps.sites),
    ...createWorkflowMethods(deps.workflows),
    'folder.open': createFolderOpen(deps.folders),
    'workflow.toolStep': deps.workflowToolStep,
  }
}

/** The daemon's parts the table is made of (./daemonLink hands them over as they are). */
export interface DaemonMethodParts {
  catalog: ToolCatalog
  configStore: { get(): Config; update(mutate: (current: Config) => Config): Promise<unknown> }
  configDir: string
  /** The local plugins' folders (the extension may ask to open them). */
  localPluginPaths(): string[]
  /** Re-discovers plugins (the reload actor). */
  reload: () => Promise<unknown>
  /** After a config change: announcements to the extension and the MCP sessions. */
  onConfigChanged: () => void
  tabStateChanged: MethodDeps['tabStateChanged']
  workflowToolStep: MethodDeps['workflowToolStep']
  /** The saved workflows (the side panel lists and edits them). */
  workflows: WorkflowMethodsDeps
}

/** The daemon's /ws table, composed from its parts. */
export function daemonMethodHandlers(parts: DaemonMethodParts): MethodHandlers {
  const { catalog, configStore } = parts
  const updateConfig = (mutate: (current: Config) => Config) => configStore.update(mutate)
  return createMethodHandlers({
    tabStateChanged: parts.tabStateChanged,
    workflowToolStep: parts.workflowToolStep,
    config: { catalog, updateConfig, onChanged: parts.onConfigChanged },
    sites: { catalog, updateConfig, onChanged: parts.onConfigChanged },
    registry: {
      env: process.env,
      configDir: parts.configDir,
      config: () => configStore.get(),
      updateConfig,
      reload: parts.reload,
      pluginState: (name) => catalog.pluginStates().find((p) => p.name === name),
    },
    workflows: parts.workflows,
    folders: { allowed: () => [parts.configDir, ...parts.localPluginPaths()] },
  })
}

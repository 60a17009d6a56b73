/**
 * `config.setSitePermission` from the side panel: a site's default, or one tool's permission. Ask and
 * auto on a tool bind the declaration the daemon sees now (its hash), the one the panel showed.
 */
import { normalizeOrigin, withSitePermission, withSiteToolPermission } from '../config/sitePermissions'
import type { Config } from '../config/schema'
import type { ToolCatalog } from '../catalog/toolCatalog'
import { JsonRpcErrorCode } from '../protocol'
import { RpcError } from '../rpc/peer'
import type { MethodHandlers } from './methodHandler'

export interface SiteMethodsDeps {
  catalog: ToolCatalog
  updateConfig(mutate: (current: Config) => Config): Promise<unknown>
  onChanged(): void
}

export function createSiteMethods(deps: SiteMethodsDeps): Pick<MethodHandlers, 'config.setSitePermission'> {
  return {
    'config.setSitePermission': async ({ origin: given, tool, permission }) => {
      const origin = normalizeOrigin(given)
      if (origin === undefined || origin !== given)
        throw new RpcError(
          JsonRpcErrorCode.invalidParams,
          'origin must be an http(s) origin such as https://example.com',
        )
      if (tool === undefined) {
        await deps.updateConfig((config) => ({
          ...config,
          sites: withSitePermission(config.sites, origin, permission),
        }))
      } else {
        const seen = deps.catalog
          .siteStates()
          .find((s) => s.origin === origin)
          ?.tools.find((t) => t.name === tool)
        if (!seen && permission !== 'off')
          throw new RpcError(
            JsonRpcErrorCode.invalidParams,
            `${origin} declares no tool "${tool.slice(0, 128)}" in an open tab: open the site first`,
          )
        await deps.updateConfig((config) => ({
          ...config,
          sites: withSiteToolPermission(config.sites, origin, tool, permission, seen?.hash),
        }))
      }
      deps.onChanged()
      return { ok: true }
    },
  }
}

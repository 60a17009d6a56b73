import { spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { JsonRpcErrorCode } from '../protocol'
import { log } from '../log'
import { RpcError } from '../rpc/peer'
import type { MethodHandler } from './methodHandler'

const logger = log.withTag('folder')

export interface FolderOpenDeps {
  /** Folders the extension may ask to open: the config directory and the local plugins' folders. */
  allowed(): string[]
  platform?: NodeJS.Platform
}

/** The desktop's own "show this folder" program. */
function opener(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'open'
  if (platform === 'win32') return 'explorer'
  return 'xdg-open'
}

const canonical = (path: string): string | undefined => {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/**
 * `folder.open { path }`: shows a folder in the desktop's file manager. Only the config directory and
 * known local plugin folders qualify (compared after resolving links), so a compromised page or panel
 * cannot make the daemon launch arbitrary paths.
 */
export function createFolderOpen(deps: FolderOpenDeps): MethodHandler<'folder.open'> {
  const platform = deps.platform ?? process.platform
  return async (params) => {
    const { path } = params
    const target = canonical(path)
    const allowed = new Set(
      deps
        .allowed()
        .map(canonical)
        .filter((p): p is string => p !== undefined),
    )
    if (!target || !allowed.has(target))
      throw new RpcError(
        JsonRpcErrorCode.invalidParams,
        'folder.open only opens the bridge config directory or a local plugin folder',
      )
    const command = opener(platform)
    await new Promise<void>((resolve, reject) => {
      const child = spawn(command, [target], { stdio: 'ignore', detached: true })
      child.once('error', (error) =>
        reject(new RpcError(JsonRpcErrorCode.internalError, `could not run ${command}: ${error.message}`)),
      )
      child.once('spawn', () => {
        child.unref()
        resolve()
      })
    })
    logger.info(`opened ${target} with ${command}`)
    return { ok: true }
  }
}

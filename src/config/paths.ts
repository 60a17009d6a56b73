/**
 * Where bridge keeps its files: `~/.bridge` unless BRIDGE_CONFIG_DIR says otherwise.
 */
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'

export interface BridgePaths {
  dir: string
  configFile: string
  extensionDir: string
  authFile: string
  /** Named MCP clients and their tokens (see clients.ts). */
  clientsFile: string
  adaptersDir: string
  serverLog: string
  pidFile: string
  /** The running daemon's lock: a unix socket it listens on (./daemonLock). */
  lockSocket: string
  auditLog: string
}

/** The config directory: BRIDGE_CONFIG_DIR (made absolute) or `~/.bridge`. */
export function configDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.BRIDGE_CONFIG_DIR
  if (fromEnv) return isAbsolute(fromEnv) ? fromEnv : resolve(fromEnv)
  return join(homedir(), '.bridge')
}

export function bridgePaths(dir: string = configDirFromEnv()): BridgePaths {
  const extensionDir = join(dir, 'extension')
  return {
    dir,
    configFile: join(dir, 'config.json'),
    extensionDir,
    authFile: join(extensionDir, 'auth.json'),
    clientsFile: join(dir, 'clients.json'),
    adaptersDir: join(extensionDir, 'adapters'),
    serverLog: join(dir, 'server.log'),
    pidFile: join(dir, 'server.pid'),
    lockSocket: join(dir, 'daemon.sock'),
    auditLog: join(dir, 'audit.log'),
  }
}

/**
 * `bridge config reset --confirm`: deletes config.json (the next start writes a fresh one);
 * auth.json is left alone so MCP clients keep working. Without --confirm nothing is touched.
 */
import { existsSync, rmSync } from 'node:fs'
import { backupConfigFile, configBackupPath } from '../../../src/config/configFile'
import { withFileLock } from '../../../src/config/fileLock'
import { errorText, fail, say } from '../../shared/output'
import { runningConfigContext, runningDaemon, type ConfigFlags } from './context'

export async function resetConfig(flags: ConfigFlags): Promise<void> {
  const context = await runningConfigContext(flags)
  const { paths } = context
  if (!flags.confirm) {
    return fail(
      `config reset deletes ${paths.configFile} (permissions, local plugins, port). ` +
        'Nothing was changed; run `bridge config reset --confirm` to do it.',
    )
  }
  if (!existsSync(paths.configFile)) return fail(`${paths.configFile} does not exist; nothing to reset`)
  try {
    // Not in the middle of another process's read-modify-write.
    withFileLock(paths.configFile, () => {
      backupConfigFile(paths.configFile)
      rmSync(paths.configFile, { force: true })
    })
  } catch (error) {
    return fail(errorText(error))
  }
  say(
    `deleted ${paths.configFile} (a copy is in ${configBackupPath(paths.configFile)}); \`bridge start\` writes a fresh one. ${paths.authFile} is unchanged.`,
  )
  if (await runningDaemon(context))
    say(
      'the running daemon keeps its current settings until it restarts (`bridge stop`, then `bridge start`)',
    )
}

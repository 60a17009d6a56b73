/**
 * The version built into dist/ (package.json's): what the built extension says it runs. A test that
 * needs an extension of another version patches this string in a copy of the built worker script.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './daemon'

export const EXTENSION_VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version

/** Makes the extension copy in `dir` run as version `version` (its worker names the build's version once). */
export function setExtensionVersion(dir: string, version: string): void {
  const file = join(dir, 'background.js')
  const code = readFileSync(file, 'utf8')
  const built = JSON.stringify(EXTENSION_VERSION)
  if (code.split(built).length !== 2) throw new Error(`${file} does not name ${built} exactly once`)
  writeFileSync(file, code.replace(built, JSON.stringify(version)))
}

/**
 * Failures of `bridge-plugin build` / `inspect`. The message is the whole user-facing text: what is
 * wrong, where, and what to change. The CLI prints it and exits non-zero.
 */
export class PluginBuildError extends Error {
  override readonly name = 'PluginBuildError'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/**
 * Failures of built-in tools. The dispatcher turns one into a -32003 tool error with `data: { code,
 * category?, retryable? }`; the agent sees `[tool_error] <message>`, so messages say what to do next.
 */
export type BuiltinErrorCategory = 'not_found' | 'validation' | 'timeout' | 'internal'

export class BuiltinToolError extends Error {
  readonly code = 'tool_error'
  constructor(
    message: string,
    readonly category: BuiltinErrorCategory,
    readonly retryable = false,
  ) {
    super(message)
    this.name = 'BuiltinToolError'
  }
}

export const notFound = (message: string): BuiltinToolError => new BuiltinToolError(message, 'not_found')
export const invalid = (message: string): BuiltinToolError => new BuiltinToolError(message, 'validation')
export const timedOut = (message: string): BuiltinToolError => new BuiltinToolError(message, 'timeout', true)
export const internal = (message: string): BuiltinToolError => new BuiltinToolError(message, 'internal')

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** Chrome refuses scripts and debugging on its own pages, the web store and other extensions. */
export function isRestrictedUrl(url: string | undefined): boolean {
  if (!url) return false
  return (
    !/^(https?|file|about|data|blob):/i.test(url) ||
    /^https:\/\/(chrome\.google\.com\/webstore|chromewebstore\.google\.com)/i.test(url)
  )
}

export function restricted(tabId: number, url: string | undefined): BuiltinToolError {
  return invalid(
    `tab ${tabId} shows ${url ?? 'a browser page'}, which extensions may not read or control: navigate it to an http(s) page or pick another tab`,
  )
}

/** Maps Chrome API failures that concern a page (restricted URL, missing frame) to clear tool errors. */
export function fromChromeError(err: unknown, tabId: number, url: string | undefined): BuiltinToolError {
  if (err instanceof BuiltinToolError) return err
  const text = messageOf(err)
  if (
    /cannot access|cannot be scripted|chrome:\/\/|extensions gallery|Cannot attach to this target/i.test(text)
  )
    return restricted(tabId, url)
  if (/No tab with id|No frame with id|Frame with ID 0 was removed|tab was closed/i.test(text))
    return notFound(`tab ${tabId} closed or navigated while the tool ran`)
  return internal(text)
}

/** Rejects with a timeout error when `promise` takes longer than `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(message)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

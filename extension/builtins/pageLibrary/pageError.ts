/** A failure inside the page, carried back to the service worker as data (never as a thrown value). */
export class PageError extends Error {
  constructor(
    readonly category: 'not_found' | 'validation' | 'internal',
    message: string,
  ) {
    super(message)
  }
}

export type PageResult = { ok: true; value: unknown } | { ok: false; category: string; message: string }

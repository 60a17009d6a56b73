import type { BrowserToolContext, Prepared, UploadFile } from './define'
import { decodedSize, MAX_FILE_BYTES } from './common'

/**
 * Daemon side of upload and drop: each path is read from the folders the user allowed and joins the
 * files sent as bytes, so the extension gets bytes only; all of them together stay within MAX_FILE_BYTES.
 */
export async function readPaths<T extends { files?: UploadFile[]; paths?: string[] }>(
  input: T,
  context: BrowserToolContext,
): Promise<Prepared<T>> {
  const { paths, ...rest } = input
  if (!paths?.length) return { ok: true, value: input }
  const files = [...(input.files ?? [])]
  let left = MAX_FILE_BYTES - files.reduce((sum, f) => sum + decodedSize(f.base64), 0)
  for (const path of paths) {
    const read = await context.readUploadFile(path, Math.max(0, left))
    if (!read.ok) return read
    files.push(read.value)
    left -= decodedSize(read.value.base64)
  }
  return { ok: true, value: { ...rest, files } as unknown as T }
}

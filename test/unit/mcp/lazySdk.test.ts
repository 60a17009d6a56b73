// Start-up loads only what it needs: the MCP SDK's server side (and zod with it) is the daemon's
// largest import, so the daemon bundle imports it only on demand, after it answers /health.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadMcpSdk } from '../../../src/mcp/mcpSessions'

const bundle = () => readFileSync(join(import.meta.dirname, '..', '..', '..', 'dist', 'server.js'), 'utf8')

describe('the MCP SDK in the daemon', () => {
  it('is not among the static imports of dist/server.js, only a dynamic one', () => {
    const text = bundle()
    expect(text).not.toMatch(/^import [^;]*?from "@modelcontextprotocol\/sdk\/[^"]+";/ms)
    expect(text).toContain('import("@modelcontextprotocol/sdk/server/index.js")')
  })

  it('loads once, with what the sessions need', async () => {
    const first = loadMcpSdk()
    expect(loadMcpSdk()).toBe(first)
    const sdk = await first
    expect(typeof sdk.Server).toBe('function')
    expect(typeof sdk.WebStandardStreamableHTTPServerTransport).toBe('function')
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }
    expect(sdk.isInitializeRequest(initialize)).toBe(true)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BROWSER_TOOLS } from '../../../src/tools'

interface PeerFigures {
  name: string
  sameTools: { peerBytesPerTool: number; pairs: Record<string, { bridge: string }> }
}

const peers = (
  JSON.parse(readFileSync(new URL('../../../bench/peers.json', import.meta.url), 'utf8')) as {
    peers: PeerFigures[]
  }
).peers

/** A built-in tool as tools/list shows it (every tool on auto), in bytes of JSON. */
const listedBytes = (name: string) => {
  const tool = BROWSER_TOOLS.find((t) => t.name === name)
  if (!tool) throw new Error(`no built-in tool ${name}`)
  return Buffer.byteLength(
    JSON.stringify({
      name: tool.name,
      description: tool.description,
      inputSchema: { ...tool.listedSchema, type: 'object' },
    }),
  )
}

// bench/peers.mjs measured the published peers' tools/list; a change that makes our listing of the
// same tools heavier than theirs fails here, without the network.
describe('the built-in tools/list beside the peers', () => {
  it.each(peers.map((p) => [p.name, p] as const))(
    'costs fewer bytes per tool than %s for the tools that do the same job',
    (_, peer) => {
      const ours = Object.values(peer.sameTools.pairs).map((pair) => listedBytes(pair.bridge))
      const perTool = ours.reduce((sum, bytes) => sum + bytes, 0) / ours.length
      expect(perTool).toBeLessThan(peer.sameTools.peerBytesPerTool)
    },
  )

  it('lists no size bounds or patterns (the daemon still validates them), and keeps enums, ranges and defaults', () => {
    const click = BROWSER_TOOLS.find((t) => t.name === 'browser_click')!
    const listed = JSON.stringify(click.listedSchema)
    expect(listed).not.toMatch(/"(minLength|maxLength|maxItems|minItems|uniqueItems|pattern)"/)
    expect(JSON.stringify(click.inputSchema)).toContain('"maxLength":2000')
    expect(click.inputSchema).toMatchObject({
      properties: { ref: { pattern: expect.any(String) as unknown } },
    })
    expect(click.listedSchema).toMatchObject({
      properties: {
        button: { type: 'string', enum: ['left', 'right', 'middle'], default: 'left' },
        snapshot: { type: 'string', enum: ['diff', 'full', 'none'] },
      },
    })
  })
})

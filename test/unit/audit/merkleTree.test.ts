/**
 * The audit tree against the published RFC 6962 test vectors (the certificate-transparency data set:
 * eight leaves, the roots of the trees of 1 to 8 of them, inclusion and consistency proofs; the
 * golden roots of trees of up to 65,535 two-byte leaves), then a
 * property test over random sizes. Proofs are made by the daemon's code (src/audit/merkleTree.ts) and
 * checked by the shared code the extension runs (src/protocol/auditProof.ts).
 */
import { describe, expect, it } from 'vitest'
import { EMPTY_ROOT, LeafHashes, TreeFrontier, leafHashOf, nodeHashOf } from '../../../src/audit/merkleTree'
import {
  fromHex,
  leafHash,
  nodeHash,
  toHex,
  verifyConsistency,
  verifyInclusion,
} from '../../../src/protocol/auditProof'

const LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
]
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
]
/** [leaf index, tree size, proof]. */
const INCLUSION: [number, number, string[]][] = [
  [
    0,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    5,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    1,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
]
/** [size1, size2, proof]. */
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
  [
    6,
    7,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
]

/**
 * Roots of bigger trees from the same published data set (transparency-dev/merkle, compact range
 * golden roots; base64 as published): leaf i's data is i as two bytes, little-endian.
 */
const BIG_ROOTS: [number, string][] = [
  [10, 'VjWMPSYNtCuCNlF/RLnQy6HcwSk6CIipfxm+hettA+4='],
  [15, 'j4SulYmocFuxdeyp12xXCIgK6PekBcxzAIj4zbQzNEI='],
  [16, 'c+4Uc6BCMOZf/v3NZK1kqTUJe+bBoFtOhP+P3SayKRE='],
  [100, 'dUh9hYH88p0CMoHkdr1wC2szbhcLAXOejWpINIooKUY='],
  [255, 'SmdsuKUqiod3RX2jyF2M6JnbdE4QuTwwipfAowI4/i0='],
  [256, 'qFI0t/tZ1MdOYgyPpPzHFiZVw86koScXy9q3FU5casA='],
  [1000, 'RXrgb8xHd55Y48FbfotJwCbV82Kx22LZfEbmBGAvwlQ='],
  [4095, 'cWRFdQhPcjn9WyBXE/r1f04ejxIm5lvg40DEpRBVS0w='],
  [4096, '6uU/phfHg1n/GksYT6TO9aN8EauMCCJRl3dIK0HDs2M='],
  [10000, 'VZcav65F9haHVRk3wre2axFoBXRNeUh/1d9d5FQfxIg='],
  [65535, 'iPuVYJhP6SEE4gUFp8qbafd2rYv9YTCDYqAxCj8HdLM='],
]

function vectorLeaves(): LeafHashes {
  const leaves = new LeafHashes()
  for (const data of LEAVES) leaves.push(leafHashOf(fromHex(data)))
  return leaves
}

describe('the audit tree (RFC 6962)', () => {
  it('hashes leaves and nodes with distinct prefixes, as the published vectors say', async () => {
    expect(toHex(EMPTY_ROOT)).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(toHex(leafHashOf(new Uint8Array(0)))).toBe(
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    )
    expect(toHex(leafHashOf(Buffer.from('L123456')))).toBe(
      '395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56',
    )
    expect(toHex(nodeHashOf(Buffer.from('N123'), Buffer.from('N456')))).toBe(
      'aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb',
    )
    // The shared (WebCrypto) hashes are the same.
    expect(toHex(await leafHash(new TextEncoder().encode('L123456')))).toBe(
      '395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56',
    )
    expect(toHex(await nodeHash(new TextEncoder().encode('N123'), new TextEncoder().encode('N456')))).toBe(
      'aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb',
    )
  })

  it('gives the published roots of the trees of 1 to 8 leaves, by frontier and by range', () => {
    const frontier = new TreeFrontier()
    const leaves = vectorLeaves()
    LEAVES.forEach((data, i) => {
      frontier.append(leafHashOf(fromHex(data)))
      expect(toHex(frontier.root())).toBe(ROOTS[i])
      expect(toHex(leaves.rangeRoot(0, i + 1))).toBe(ROOTS[i])
    })
  })

  it.each(INCLUSION)(
    'makes and verifies the published inclusion proof of leaf %i in %i',
    async (index, size, want) => {
      const leaves = vectorLeaves()
      const proof = leaves.inclusionProof(index, size)
      expect(proof.map(toHex)).toEqual(want)
      const root = fromHex(ROOTS[size - 1]!)
      expect(await verifyInclusion(index, size, leaves.at(index), proof, root)).toBe(true)
      expect(await verifyInclusion(index, size, leaves.at((index + 1) % size), proof, root)).toBe(false)
      if (size > 1) expect(await verifyInclusion(index + 1, size, leaves.at(index), proof, root)).toBe(false)
    },
  )

  it.each(CONSISTENCY)(
    'makes and verifies the published consistency proof from %i to %i',
    async (m, n, want) => {
      const leaves = vectorLeaves()
      const proof = leaves.consistencyProof(m, n)
      expect(proof.map(toHex)).toEqual(want)
      const root1 = fromHex(ROOTS[m - 1]!)
      const root2 = fromHex(ROOTS[n - 1]!)
      expect(await verifyConsistency(m, n, root1, root2, proof)).toBe(true)
      if (m !== n) {
        expect(await verifyConsistency(m, n, root2, root1, proof)).toBe(false)
        expect(await verifyConsistency(m, n, root1, root2, proof.slice(0, -1))).toBe(false)
        expect(await verifyConsistency(m, n, root1, root2, [...proof, root1])).toBe(false)
      }
    },
  )

  it('gives the published roots of bigger trees (10 to 65,535 leaves), by frontier, by the kept levels and by range', async () => {
    const leaves = new LeafHashes()
    const frontier = new TreeFrontier()
    const want = new Map(BIG_ROOTS.map(([size, root]) => [size, Buffer.from(root, 'base64').toString('hex')]))
    for (let i = 0; leaves.size < 65_535; i++) {
      const leaf = leafHashOf(Buffer.from([i & 0xff, (i >> 8) & 0xff]))
      leaves.push(leaf)
      frontier.append(leaf)
      const root = want.get(leaves.size)
      if (root === undefined) continue
      expect(toHex(frontier.root())).toBe(root)
      expect(toHex(leaves.root())).toBe(root)
      expect(toHex(leaves.frontier().root())).toBe(root)
    }
    // Proofs between the published roots, made by the daemon and checked by the shared code.
    const sizes = BIG_ROOTS.map(([size]) => size)
    for (let a = 0; a < sizes.length; a++)
      for (let b = a + 1; b < sizes.length; b++) {
        const [m, n] = [sizes[a]!, sizes[b]!]
        const ok = await verifyConsistency(
          m,
          n,
          fromHex(want.get(m)!),
          fromHex(want.get(n)!),
          leaves.consistencyProof(m, n),
        )
        expect(ok).toBe(true)
      }
    for (const [size, index] of [
      [100, 37],
      [4095, 4094],
      [65_535, 12_345],
    ] as const)
      expect(
        await verifyInclusion(
          index,
          size,
          leaves.at(index),
          leaves.inclusionProof(index, size),
          fromHex(want.get(size)!),
        ),
      ).toBe(true)
  })

  it('refuses a smaller second tree and an empty proof between different sizes', async () => {
    const r = fromHex(ROOTS[3]!)
    expect(await verifyConsistency(4, 3, r, r, [])).toBe(false)
    expect(await verifyConsistency(2, 4, fromHex(ROOTS[1]!), r, [])).toBe(false)
    expect(await verifyConsistency(0, 4, EMPTY_ROOT, r, [])).toBe(true)
  })
})

describe('consistency proofs between random sizes (property)', () => {
  // A seeded generator, so a failure names sizes that can be replayed.
  let seed = 0x2545f491
  const random = (below: number): number => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) % below
  }

  it('every proof verifies, and every proof with one bit flipped, one node dropped or added, or another old root fails', async () => {
    const leaves = new LeafHashes()
    const compact = new LeafHashes(3)
    const hashes: Buffer[] = []
    const chunkLeaves = (chunk: number): Buffer[] => hashes.slice(chunk * 8, chunk * 8 + 8)
    const frontier = new TreeFrontier()
    const roots: Buffer[] = [EMPTY_ROOT]
    for (let i = 0; i < 300; i++) {
      const leaf = leafHashOf(Buffer.from(`{"n":${i}}`))
      hashes.push(leaf)
      compact.push(leaf)
      leaves.push(leaf)
      frontier.append(leaf)
      roots.push(frontier.root())
    }
    for (let trial = 0; trial < 150; trial++) {
      const n = 1 + random(300)
      const m = 1 + random(n)
      const proof = leaves.consistencyProof(m, n)
      const context = `m=${m} n=${n}`
      // A compact tree (levels from 2^3 up) gives the same proof, reading back at most two chunks.
      expect(compact.consistencyProof(m, n, chunkLeaves), context).toEqual(proof)
      expect(await verifyConsistency(m, n, roots[m]!, roots[n]!, proof), context).toBe(true)
      expect(toHex(leaves.rangeRoot(0, n)), context).toBe(toHex(roots[n]!))
      if (m === n) continue
      const at = random(proof.length)
      const bit = random(256)
      const flipped = proof.map((p, i) => {
        if (i !== at) return p
        const copy = Buffer.from(p)
        copy[bit >> 3]! ^= 1 << (bit & 7)
        return copy
      })
      expect(await verifyConsistency(m, n, roots[m]!, roots[n]!, flipped), `${context} flipped`).toBe(false)
      const dropped = proof.filter((_, i) => i !== at)
      expect(await verifyConsistency(m, n, roots[m]!, roots[n]!, dropped), `${context} dropped`).toBe(false)
      const added = [...proof.slice(0, at), roots[m]!, ...proof.slice(at)]
      expect(await verifyConsistency(m, n, roots[m]!, roots[n]!, added), `${context} added`).toBe(false)
      // Another old tree (a rewritten history) does not verify against today's root.
      const other = m > 1 ? roots[m - 1]! : leafHashOf(Buffer.from('rewritten'))
      expect(await verifyConsistency(m, n, other, roots[n]!, proof), `${context} old root`).toBe(false)
    }
  })

  it('every inclusion proof verifies and a flipped one fails', async () => {
    const leaves = new LeafHashes()
    for (let i = 0; i < 100; i++) leaves.push(leafHashOf(Buffer.from(String(i))))
    for (let trial = 0; trial < 60; trial++) {
      const n = 1 + random(100)
      const index = random(n)
      const root = leaves.rangeRoot(0, n)
      const proof = leaves.inclusionProof(index, n)
      expect(await verifyInclusion(index, n, leaves.at(index), proof, root)).toBe(true)
      if (proof.length === 0) continue
      const flipped = proof.map((p, i) => (i === 0 ? Buffer.from(p.map((b, j) => (j === 0 ? b ^ 4 : b))) : p))
      expect(await verifyInclusion(index, n, leaves.at(index), flipped, root)).toBe(false)
    }
  })
})

describe('the compact tree (levels below a height kept for the last chunk only)', () => {
  /** A compact tree of `leaves` and the ChunkLeaves that reads them back, as the files do. */
  const compact = (height: number, leaves: readonly Buffer[]) => {
    const tree = new LeafHashes(height)
    for (const leaf of leaves) tree.push(leaf)
    const per = 2 ** height
    let reads = 0
    const leavesOf = (chunk: number): Buffer[] => {
      reads++
      return leaves.slice(chunk * per, Math.min((chunk + 1) * per, tree.size))
    }
    return { tree, leavesOf, reads: () => reads }
  }
  const vectorHashes = LEAVES.map((data) => leafHashOf(fromHex(data)))

  it.each([1, 2, 3])('gives the published roots and proofs with only levels from %i kept', async (height) => {
    const { tree, leavesOf } = compact(height, vectorHashes)
    LEAVES.forEach((_, i) => expect(toHex(tree.root(i + 1, leavesOf))).toBe(ROOTS[i]))
    for (const [index, size, want] of INCLUSION)
      expect(tree.inclusionProof(index, size, leavesOf).map(toHex)).toEqual(want)
    for (const [m, n, want] of CONSISTENCY) {
      const proof = tree.consistencyProof(m, n, leavesOf)
      expect(proof.map(toHex)).toEqual(want)
      expect(await verifyConsistency(m, n, fromHex(ROOTS[m - 1]!), fromHex(ROOTS[n - 1]!), proof)).toBe(true)
    }
    // Without the chunk's leaves a proof that needs them is refused, not made up.
    expect(() => tree.consistencyProof(1, 8)).toThrow(RangeError)
  })

  it('gives the published roots of trees of 10 to 65,535 leaves with the levels from 2^8 up, and the same proofs', async () => {
    const hashes: Buffer[] = []
    for (let i = 0; i < 65_535; i++) hashes.push(leafHashOf(Buffer.from([i & 0xff, (i >> 8) & 0xff])))
    const full = new LeafHashes()
    const small = new LeafHashes(8)
    const want = new Map(BIG_ROOTS.map(([size, root]) => [size, Buffer.from(root, 'base64').toString('hex')]))
    for (const leaf of hashes) {
      full.push(leaf)
      small.push(leaf)
      const root = want.get(small.size)
      if (root === undefined) continue
      // The root and frontier of the whole tree need no leaf read back.
      expect(toHex(small.root())).toBe(root)
      expect(toHex(small.frontier().root())).toBe(root)
    }
    const { leavesOf, reads } = compact(8, hashes)
    const sizes = BIG_ROOTS.map(([size]) => size)
    for (let a = 0; a < sizes.length; a++)
      for (let b = a + 1; b < sizes.length; b++) {
        const [m, n] = [sizes[a]!, sizes[b]!]
        const before = reads()
        const proof = small.consistencyProof(m, n, leavesOf)
        // One bounded read: the chunks the two sizes fall in, at most.
        expect(reads() - before).toBeLessThanOrEqual(2)
        expect(proof).toEqual(full.consistencyProof(m, n))
        expect(await verifyConsistency(m, n, fromHex(want.get(m)!), fromHex(want.get(n)!), proof)).toBe(true)
      }
    for (const index of [0, 255, 256, 12_345, 65_534]) {
      const before = reads()
      expect(small.inclusionProof(index, 65_535, leavesOf)).toEqual(full.inclusionProof(index, 65_535))
      expect(reads() - before).toBeLessThanOrEqual(2)
    }
    // Memory: the kept levels and the last chunk, not 64 bytes an entry.
    expect(full.keptBytes / full.size).toBeGreaterThan(60)
    expect(small.keptBytes / small.size).toBeLessThan(1)
  })

  it('keeps under a byte per entry, whatever the size, and cuts back and grows as the full tree does', () => {
    const leaf = (n: number): Buffer => leafHashOf(Buffer.from(`entry ${n}`))
    const small = new LeafHashes(8)
    for (let i = 0; i < 200_000; i++) small.push(leaf(i))
    expect(small.keptBytes / small.size).toBeLessThan(1)
    const hashes = Array.from({ length: 1_000 }, (_, i) => leaf(i))
    for (const [cut, other] of [
      [700, 300],
      [512, 10],
      [300, 1],
      [0, 257],
    ] as const) {
      const { tree, leavesOf } = compact(8, hashes)
      tree.truncate(cut, leavesOf)
      const fresh = new LeafHashes()
      for (let i = 0; i < cut; i++) fresh.push(hashes[i]!)
      for (let i = 0; i < other; i++) {
        tree.push(leaf(5000 + i))
        fresh.push(leaf(5000 + i))
      }
      const grown = [...hashes.slice(0, cut), ...Array.from({ length: other }, (_, i) => leaf(5000 + i))]
      const { leavesOf: grownLeaves } = compact(8, grown)
      expect(tree.size).toBe(fresh.size)
      for (const m of [0, 1, 255, 256, 257, cut, fresh.size - 1, fresh.size].filter(
        (m) => m >= 0 && m <= fresh.size,
      ))
        expect(tree.consistencyProof(m, fresh.size, grownLeaves)).toEqual(
          fresh.consistencyProof(m, fresh.size),
        )
      expect(tree.root().equals(fresh.root())).toBe(true)
    }
    // Cut inside an earlier chunk without its leaves: refused.
    const { tree } = compact(8, hashes)
    expect(() => tree.truncate(300)).toThrow(RangeError)
  })
})

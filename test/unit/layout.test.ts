import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// DESIGN.md section 3, "who may import whom", checked against the code's own import statements.
const root = join(import.meta.dirname, '..', '..')

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  let names: string[]
  try {
    names = readdirSync(join(root, dir))
  } catch {
    return out
  }
  for (const name of names) {
    const rel = join(dir, name)
    if (name === 'node_modules' || name === 'dist') continue
    if (statSync(join(root, rel)).isDirectory()) out.push(...sourceFiles(rel))
    else if (/\.(ts|tsx)$/.test(name) && !/\.test(-d)?\.ts$/.test(name)) out.push(rel)
  }
  return out
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
  const specs: string[] = []
  const re =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g
  for (const m of text.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3] ?? m[4])!)
  return specs
}

/** Resolves a relative import to a repository path prefix (without extension) for folder checks. */
function target(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec
  return relative(root, join(root, file, '..', spec))
}

const violations = (dirs: string[], allowed: (file: string, spec: string, resolved: string) => boolean) =>
  dirs
    .flatMap(sourceFiles)
    .flatMap((file) => importsOf(file).map((spec) => ({ file, spec, resolved: target(file, spec) })))
    .filter(({ file, spec, resolved }) => !allowed(file, spec, resolved))
    .map(({ file, spec }) => `${file} imports ${spec}`)

describe('module boundaries of DESIGN.md', () => {
  it('finds the source folders it checks', () => {
    expect(sourceFiles('src/protocol').length).toBeGreaterThan(0)
  })

  it('machines import only xstate, src/protocol and each other', () => {
    expect(
      violations(
        ['machines'],
        (_f, spec, r) => spec === 'xstate' || r.startsWith('src/protocol') || r.startsWith('machines/'),
      ),
    ).toEqual([])
  })

  it('src/protocol and src/sdk import no node:* module and nothing with side effects outside themselves', () => {
    const ok = (_f: string, spec: string, r: string) =>
      !spec.startsWith('node:') &&
      (spec.startsWith('@sinclair/typebox') || r.startsWith('src/protocol') || r.startsWith('src/sdk'))
    expect(violations(['src/protocol', 'src/sdk'], ok)).toEqual([])
  })

  it('src/rpc, shared by the daemon and the extension, imports no node:* module and only src/protocol', () => {
    const ok = (_f: string, spec: string, r: string) =>
      !spec.startsWith('node:') &&
      (spec.startsWith('@sinclair/typebox') || r.startsWith('src/protocol') || r.startsWith('src/rpc'))
    expect(sourceFiles('src/rpc').length).toBeGreaterThan(0)
    expect(violations(['src/rpc'], ok)).toEqual([])
  })

  it('only src/http imports the HTTP engines', () => {
    const engine = /^(ws|uWebSockets\.js)$/
    expect(
      violations(['src', 'cli', 'machines'], (f, spec) => !engine.test(spec) || f.startsWith('src/http/')),
    ).toEqual([])
  })

  it('only src/mcp imports the MCP SDK', () => {
    expect(
      violations(
        ['src', 'cli', 'machines'],
        (f, spec) => !spec.startsWith('@modelcontextprotocol/sdk') || f.startsWith('src/mcp/'),
      ),
    ).toEqual([])
  })

  it('no file under src/ or machines/ imports the CLI: shared pieces live in src/ and cli/ builds on them', () => {
    expect(sourceFiles('src/authoring').length).toBeGreaterThan(0)
    expect(violations(['src', 'machines'], (_f, _spec, r) => !/^cli(\/|$)/.test(r))).toEqual([])
  })

  it('no upward arrow: plugin authoring does not import the CLI, a call’s life knows no transport, tool definitions only the protocol', () => {
    // Interfaces are declared where they are used: the extension port and the approval channel in
    // src/calls (src/ws and src/mcp provide them), so src/calls imports neither of them nor the front.
    expect(violations(['src/authoring'], (_f, _spec, r) => !r.startsWith('cli/'))).toEqual([])
    expect(violations(['src/calls'], (_f, _spec, r) => !/^(src\/(mcp|ws|http)|cli)\//.test(r))).toEqual([])
    expect(
      violations(
        ['src/tools'],
        (_f, spec, r) =>
          !spec.startsWith('node:') &&
          (spec.startsWith('@sinclair/typebox') || /^src\/(protocol|tools)\//.test(r)),
      ),
    ).toEqual([])
  })

  it('the extension imports only src/protocol, src/rpc, src/sdk, src/tools and its own files', () => {
    const ok = (_f: string, spec: string, r: string) =>
      !spec.startsWith('node:') &&
      (!spec.startsWith('.')
        ? /^(preact|@sinclair\/typebox)/.test(spec)
        : /^(extension|src\/(protocol|rpc|sdk|tools))\b/.test(r))
    expect(violations(['extension'], ok)).toEqual([])
  })
})

/** The relative imports of a file, type-only ones included, resolved to repository paths. */
function localImportsOf(file: string, known: Set<string>): string[] {
  return importsOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => target(file, spec))
    .flatMap((base) =>
      [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].filter((path) => known.has(path)),
    )
}

describe('the composition root', () => {
  const files = ['src', 'machines', 'cli'].flatMap(sourceFiles)
  const known = new Set(files)
  const graph = new Map(files.map((file) => [file, localImportsOf(file, known)]))

  it('is imported only by the two programs that start a daemon: no arrow runs back up to src/daemon.ts', () => {
    const importers = files.filter((file) => graph.get(file)!.includes('src/daemon.ts'))
    expect(importers.sort()).toEqual(['cli/commands/start.ts', 'src/main.ts'])
  })

  it('sits on a module graph with no import circle, type imports included', () => {
    // Depth-first search; a file met again while still on the path closes a circle.
    const state = new Map<string, 'open' | 'done'>()
    const circles: string[] = []
    const visit = (file: string, path: string[]): void => {
      state.set(file, 'open')
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].join(' -> '))
        else if (!state.has(next)) visit(next, [...path, next])
      }
      state.set(file, 'done')
    }
    for (const file of files) if (!state.has(file)) visit(file, [file])
    expect(files.length).toBeGreaterThan(100)
    expect(circles).toEqual([])
  })
})

describe('one shape per extension point', () => {
  const names = (dir: string) => readdirSync(join(root, dir)).filter((n) => n.endsWith('.ts'))
  const groups = names('src/tools')
    .map((n) => n.replace(/\.ts$/, ''))
    .filter((n) => !['common', 'define', 'facts', 'index'].includes(n))

  it('each src/tools/<group>.ts has its handlers in extension/builtins/<group>.ts', () => {
    expect(groups.length).toBeGreaterThan(10)
    const missing = groups.filter((group) => {
      const file = join(root, 'extension', 'builtins', `${group}.ts`)
      return (
        !existsSync(file) || !readFileSync(file, 'utf8').includes(`export const ${group}Handlers: Handlers<`)
      )
    })
    expect(missing).toEqual([])
  })

  it('only cli/shared/daemonTarget.ts reads the port and the secret for commands that talk to the daemon', () => {
    // `bridge start` and `bridge doctor` read config.json and auth.json themselves (they create or check them).
    const own = /^cli\/(shared\/daemonTarget\.ts|commands\/start\.ts|commands\/doctor(\.ts|\/))/
    const reads = ['cli', 'src/authoring']
      .flatMap(sourceFiles)
      .filter(
        (file) =>
          !own.test(file) && /\b(resolvePort|readSecret)\(/.test(readFileSync(join(root, file), 'utf8')),
      )
    expect(reads).toEqual([])
  })

  it('plugin authoring lives in src/authoring and its tests mirror it; the XState inspector is src/machineInspector.ts, no file is a bare inspect.ts', () => {
    expect(existsSync(join(root, 'src', 'build'))).toBe(false)
    const sources = new Set(names('src/authoring').map((n) => n.replace(/\.ts$/, '')))
    const unmatched = names('test/unit/authoring')
      .map((n) => n.replace(/\.test\.ts$/, ''))
      .filter((n) => !sources.has(n))
    expect(unmatched).toEqual([])
    expect(['src', 'cli'].flatMap(sourceFiles).filter((f) => f.endsWith('/inspect.ts'))).toEqual([])
    expect(existsSync(join(root, 'src', 'machineInspector.ts'))).toBe(true)
  })
})

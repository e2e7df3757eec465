#!/usr/bin/env node
/**
 * The layering check (issue 10 item 7), run by `npm test`: `node scripts/checkLayers.mjs [root]`.
 *
 * Every relative import in the .ts files under core/, projections/, adapters/, web/, bench/ and specs/ (static
 * `import … from`, `export … from`, side-effect `import '…'`, dynamic `import('…')`, and type-only imports, which
 * the report marks: a type is knowledge of the other layer too) is checked against four rules:
 *   1. core/ imports nothing from projections/, adapters/ or web/;
 *   2. projections/ imports only core/ and projections/;
 *   3. web/ imports nothing from projections/, and from adapters/ only types (the wire contracts the daemon serves
 *      the console: type-only imports erase at bundling, so no server code reaches the browser);
 *   5. core/ imports no storage package (classic-level, pg, ioredis, …): storage drivers live in adapters/ and core
 *      reaches storage only through its ports (the EventLog, the file system);
 *   4. no import cycle between folders: at the top level (core, projections, adapters, web, bench, specs) and at
 *      every directory level inside core/, projections/ and adapters/, the sibling folders' imports of one another
 *      form no cycle. A file sitting directly in a folder (core/errors.ts) is a node of that level of its own, so
 *      a cycle through it counts; files of the same folder importing one another are that folder's business,
 *      unless they close a circle with a subfolder (core/x/a.ts imports core/x/y/, core/x/y/ imports core/x/c.ts,
 *      which imports a.ts) or run through the folder's barrel (core/x/b.ts imports ./index.js, which re-exports
 *      b.ts): the imports among a level's own files are edges too, and a cycle made only of them is reported when
 *      it passes through the barrel. A barrel is for callers outside its folder.
 * Exit 1 listing each offending import as file:line, and each cycle as a path of folders with one example import
 * per edge; exit 0 otherwise.
 *
 * Why not dependency-cruiser: it would be a new dependency (and its own configuration language) for four rules;
 * TypeScript, already here, parses the files (so an import written inside a string or a comment is not one).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const SCANNED = ['core', 'projections', 'adapters', 'web', 'bench', 'specs']
/** The folders whose inner levels are checked for cycles (the top level always is). */
const NESTED_LEVELS = ['core', 'projections', 'adapters']
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist'])
const SOURCE_FILE = /\.(ts|mts|cts|tsx)$/
/** A folder's barrel: the file that re-exports the folder to callers outside it. */
const BARREL = /^index\.(ts|mts|cts|tsx)$/

/** Which top-level folders a top-level folder must not import from. */
const FORBIDDEN = {
  core: { refused: ['projections', 'adapters', 'web'], rule: 'core/ imports nothing from projections/, adapters/ or web/' },
  projections: { allowed: ['core', 'projections'], rule: 'projections/ imports only core/' },
  web: { refused: ['projections'], typesOnly: ['adapters'], rule: 'web/ imports nothing from projections/, and only types from adapters/' },
}

/** Packages that talk to a storage engine (and their subpaths): core/ imports none of them. */
const STORAGE_PACKAGES = ['classic-level', 'level', 'abstract-level', 'leveldown', 'pg', 'pg-pool', 'postgres', 'ioredis', 'redis']
const STORAGE_RULE = 'core/ imports no storage package: drivers live in adapters/'

/** Every relative import of every scanned file: {from, line, specifier, to, typeOnly} with repository-relative '/' paths. */
export function collectImports(root) {
  const imports = []
  for (const top of SCANNED) {
    for (const file of typeScriptFiles(join(root, top))) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
      const from = posix(relative(root, file))
      for (const { node, specifier, typeOnly } of importsOf(source)) {
        if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
          if (top === 'core' && isStoragePackage(specifier)) {
            const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
            imports.push({ from, line, specifier, to: specifier, typeOnly, storage: true })
          }
          continue
        }
        const to = posix(relative(root, sourceOf(resolve(dirname(file), specifier))))
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
        imports.push({ from, line, specifier, to, typeOnly })
      }
    }
  }
  return imports
}

/** The module specifiers a file names, with whether the import vanishes at run time (`import type`, `import('x').T`). */
function importsOf(source) {
  const found = []
  const literal = (node) => (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined)
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const specifier = literal(node.moduleSpecifier)
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly
      if (specifier !== undefined) found.push({ node, specifier, typeOnly })
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const specifier = literal(node.arguments[0])
      if (specifier !== undefined) found.push({ node, specifier, typeOnly: false })
    } else if (ts.isImportTypeNode(node)) {
      const specifier = ts.isLiteralTypeNode(node.argument) ? literal(node.argument.literal) : undefined
      if (specifier !== undefined) found.push({ node, specifier, typeOnly: true })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** `pg/lib/x` → `pg`, `@scope/name/x` → `@scope/name`. */
function packageName(specifier) {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

function isStoragePackage(specifier) {
  return STORAGE_PACKAGES.includes(packageName(specifier))
}

/** Imports that break rules 1–3 and 5. */
export function layerViolations(imports) {
  const violations = []
  for (const entry of imports) {
    if (entry.storage) {
      violations.push({ ...entry, rule: STORAGE_RULE })
      continue
    }
    const fromTop = entry.from.split('/')[0]
    const toTop = entry.to.split('/')[0]
    const rule = FORBIDDEN[fromTop]
    if (!rule) continue
    const broken = rule.allowed ? !rule.allowed.includes(toTop) : rule.refused.includes(toTop) || (rule.typesOnly?.includes(toTop) === true && !entry.typeOnly)
    if (broken) violations.push({ ...entry, rule: rule.rule })
  }
  return violations
}

/**
 * Rule 4. For each level (the repository root, and every folder inside the nested ones), an import from a file
 * under child A of the level to a file under another child B is an edge A → B; each strongly connected set of
 * children is a cycle, reported as the shortest cycle through each of its members (duplicates dropped), every
 * edge with its first run-time import as the example (its first import when all of them are type-only).
 */
export function folderCycles(imports) {
  const levels = new Map()
  for (const entry of imports) {
    if (entry.storage) continue
    const from = entry.from.split('/')
    const to = entry.to.split('/')
    for (let depth = 0; depth < Math.min(from.length, to.length); depth++) {
      const level = from.slice(0, depth).join('/')
      if (depth > 0 && !NESTED_LEVELS.includes(from[0])) break
      const a = from[depth]
      const b = to[depth]
      if (a === b) continue
      // Two files of the same folder: an edge between files, which closes a cycle only with a subfolder or a barrel.
      const betweenFiles = depth === from.length - 1 && depth === to.length - 1
      const edges = levels.get(level) ?? new Map()
      levels.set(level, edges)
      const key = `${a}\u0000${b}`
      // The example is a run-time import when the edge has one: a type-only example means the whole edge is.
      const known = edges.get(key)
      if (!known || (known.example.typeOnly && !entry.typeOnly)) edges.set(key, { a, b, betweenFiles, example: entry })
      break
    }
  }
  const cycles = []
  for (const [level, edges] of [...levels].sort(([x], [y]) => x.localeCompare(y))) {
    const next = new Map()
    for (const { a, b } of edges.values()) next.set(a, [...(next.get(a) ?? []), b].sort())
    const seen = new Set()
    const isFolder = (node) => !SOURCE_FILE.test(node)
    for (const component of stronglyConnected(next)) {
      if (component.length < 2) continue
      // Cycles are told through their folders; a component of files only is one folder's own business but for its barrel.
      const folders = component.filter(isFolder)
      const starts = folders.length > 0 ? folders : component.filter((node) => BARREL.test(node))
      for (const start of starts.sort()) {
        const path = shortestCycle(next, start, new Set(component))
        const canonical = rotateToSmallest(path).join('>')
        if (seen.has(canonical)) continue
        seen.add(canonical)
        const name = (node) => (level ? `${level}/${node}` : node)
        const cycleEdges = path.map((node, index) => edges.get(`${node}\u0000${path[(index + 1) % path.length]}`))
        const kind = !cycleEdges.some((edge) => edge.betweenFiles) ? 'between folders' : folders.length > 0 ? "between a folder's files and its subfolders" : "through a folder's barrel"
        cycles.push({
          level: level || '.',
          kind,
          path: [...path, path[0]].map(name),
          edges: cycleEdges.map((edge) => ({ from: name(edge.a), to: name(edge.b), example: edge.example })),
        })
      }
    }
  }
  return cycles
}

function stronglyConnected(next) {
  const nodes = [...new Set([...next.keys(), ...[...next.values()].flat()])].sort()
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const components = []
  let counter = 0
  const visit = (node) => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node), low.get(target)))
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)))
    }
    if (low.get(node) === index.get(node)) {
      const component = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      components.push(component)
    }
  }
  for (const node of nodes) if (!index.has(node)) visit(node)
  return components
}

/** Breadth-first from `start` back to itself inside `within`: the nodes of the cycle, `start` first. */
function shortestCycle(next, start, within) {
  const parent = new Map([[start, null]])
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()
    for (const target of next.get(node) ?? []) {
      if (!within.has(target)) continue
      if (target === start) {
        const path = [node]
        for (let step = parent.get(node); step !== null; step = parent.get(step)) path.unshift(step)
        return path
      }
      if (!parent.has(target)) {
        parent.set(target, node)
        queue.push(target)
      }
    }
  }
  return [start]
}

function rotateToSmallest(path) {
  const smallest = path.indexOf([...path].sort()[0])
  return [...path.slice(smallest), ...path.slice(0, smallest)]
}

function* typeScriptFiles(directory) {
  let entries
  try {
    entries = readdirSync(directory, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) yield* typeScriptFiles(path)
    } else if (entry.isFile() && /\.(ts|mts|cts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path
  }
}

const posix = (path) => path.split(sep).join('/')

/** The source file an ESM specifier names: `./a.js` is written for `./a.ts` (NodeNext), so that is the file when it exists. */
function sourceOf(path) {
  const compiled = /\.(m|c)?js$/.exec(path)
  if (compiled) {
    for (const extension of compiled[1] ? [`.${compiled[1]}ts`] : ['.ts', '.tsx']) {
      const source = path.slice(0, -compiled[0].length) + extension
      if (existsSync(source)) return source
    }
  }
  return path
}

/** The report: one line per offending import, one block per cycle. Empty when the layering holds. */
export function report(root) {
  const imports = collectImports(root)
  const lines = []
  for (const violation of layerViolations(imports)) {
    const kind = violation.typeOnly ? 'imports types from' : 'imports'
    lines.push(`${violation.from}:${violation.line} ${kind} '${violation.specifier}' (${violation.to}): ${violation.rule}`)
  }
  for (const cycle of folderCycles(imports)) {
    lines.push(`import cycle ${cycle.kind}: ${cycle.path.join(' -> ')}`)
    for (const edge of cycle.edges) {
      const kind = edge.example.typeOnly ? 'imports types from' : 'imports'
      lines.push(`  ${edge.from} -> ${edge.to}: ${edge.example.from}:${edge.example.line} ${kind} '${edge.example.specifier}'`)
    }
  }
  return lines
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'))
  const lines = report(root)
  if (lines.length > 0) {
    console.error(`Layering check failed (${root}):\n${lines.join('\n')}`)
    process.exit(1)
  }
  console.log('Layering check: every import keeps to its layer and no folders import each other in a cycle.')
}

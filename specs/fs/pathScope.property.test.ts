import { lstatSync } from 'node:fs'
import { join, resolve } from 'node:path'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { isQuireError } from '../../core/errors.js'
import { PathScope } from '../../adapters/fs/pathScope.js'
import { buildScopeTree } from '../support/fsFixture.js'
import type { ScopeTree } from '../support/fsFixture.js'
import { resolveLikeTheKernel, segmentsWithin } from '../support/fsResolve.js'
import { useFsTempDirs } from '../support/fsTemp.js'
import { fuzzParameters } from '../support/fuzz.js'

const newDir = useFsTempDirs('file')
let tree: ScopeTree

beforeAll(async () => {
  tree = await buildScopeTree(await newDir())
})

/** Every name in the fixture tree, the CVE shapes (`_evil` suffixes), and the segments that move or do nothing. */
const SEGMENTS = [
  'ws', 'ws_evil', 'wslink', 'out', 'docs', 'sub', 'sub_evil', 'deeper', 'up', 'a.md', 'b.md', 'secret.md', 'new.md',
  'link-in-file', 'link-in-dir', 'link-out-file', 'link-out-dir', 'rel-up', 'dangling-in', 'dangling-out', 'loop',
  'back', '..', '..', '.', '',
] as const

type Expected = { readonly accepted: true; readonly real: string; readonly exists: boolean } | { readonly accepted: false }

/**
 * The oracle: accepted iff the lexical form is inside a root (the documented first gate) and the real location — as
 * an independent component-by-component resolver finds it — is inside a root too. A new file needs a real parent,
 * a plain final name, and no dangling symlink in its place.
 */
function expected(requested: string, rootForms: readonly string[]): Expected {
  const inside = (path: string): boolean => rootForms.some((root) => segmentsWithin(path, root))
  if (!inside(resolve(requested))) return { accepted: false }
  const resolution = resolveLikeTheKernel(requested)
  if (resolution.kind === 'exists') return inside(resolution.real) ? { accepted: true, real: resolution.real, exists: true } : { accepted: false }
  if (resolution.kind === 'error') return { accepted: false }
  const lastSegment = requested.split('/').at(-1) ?? ''
  let occupied = true
  try {
    lstatSync(requested)
  } catch {
    occupied = false
  }
  const real = join(resolution.parent, resolution.name)
  if (['', '.', '..'].includes(lastSegment) || occupied || !inside(real)) return { accepted: false }
  return { accepted: true, real, exists: false }
}

describe('SCOPE.1–SCOPE.2 property: a path is accepted iff it and its real location are inside a root', () => {
  it('SCOPE.2 random paths of tree names, `..`, `.`, empty segments, `_evil` siblings and symlinks', async () => {
    const rootSets = [[tree.ws], [tree.wslink], [tree.ws, tree.docs]] as const
    const scopes = await Promise.all(rootSets.map((roots) => PathScope.create(roots)))
    const starts = [tree.T, tree.ws, join(tree.ws, 'sub'), tree.out, tree.wslink]
    let accepted = 0
    let refused = 0
    await fc.assert(
      fc.asyncProperty(
        fc.nat(rootSets.length - 1),
        fc.constantFrom(...starts),
        fc.array(fc.constantFrom(...SEGMENTS), { minLength: 0, maxLength: 6 }),
        async (rootSet, start, segments) => {
          const scope = scopes[rootSet]!
          const requested = [start, ...segments].join('/')
          const want = expected(requested, scope.roots)
          let got: Awaited<ReturnType<PathScope['resolveInScope']>> | undefined
          try {
            got = await scope.resolveInScope(requested)
          } catch (error) {
            if (!isQuireError(error, 'INVALID_PATH')) throw error
          }
          if (want.accepted) {
            accepted++
            expect(got, `${requested} should be accepted`).toEqual({ requested: resolve(requested), real: want.real, exists: want.exists })
          } else {
            refused++
            expect(got, `${requested} should be refused`).toBeUndefined()
          }
        },
      ),
      fuzzParameters({ numRuns: 2_000 }),
    )
    // The generator must exercise both sides, or the property says little.
    expect(accepted).toBeGreaterThan(200)
    expect(refused).toBeGreaterThan(200)
  })
})

import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { frontmatterIdentity, maskIdentity } from '../../../core/coherence/frontmatter.js'
import { binaryContentHash, canonicalText, hashFileContent, textContentHash } from '../../../core/coherence/hashing.js'
import { revisionId } from '../../../core/coherence/revision.js'
import { fuzzParameters } from '../../support/fuzz.js'

/** Golden vectors VMark's own canonicalization tests use (src-tauri/src/coherence/canonical.test.rs). */
const BARE = '# Scene 12\nElena waited in the rain.\n'
const BARE_HASH = 'sha256:e59856b8f84f657f19d657aa2504758f3504e79dcc6e4aa999b0f9125edd4221'
const AUTHOR_FRONTMATTER_HASH = 'sha256:56c0dc6798a8150ebd2d806e1903a6e2afc6a43b9c5c332d358b2c3e52b308d2'
const ID = '018f3c7a-9f2e-7cc1-b302-5e9d4a6b21c7'

describe('content hashes (spec §3)', () => {
  it('hash a bare document as VMark does', () => {
    expect(textContentHash(BARE)).toBe(BARE_HASH)
  })

  it('§3.3 identity exclusion: vmark.id and vmark.schema in author frontmatter do not move the hash', () => {
    const withIdentity = `---\ntitle: Scene\nvmark:\n  id: ${ID}\n  schema: scene\n---\n${BARE}`
    const authorOnly = `---\ntitle: Scene\n---\n${BARE}`
    expect(textContentHash(withIdentity)).toBe(AUTHOR_FRONTMATTER_HASH)
    expect(textContentHash(authorOnly)).toBe(AUTHOR_FRONTMATTER_HASH)
  })

  it('§3.3 identity exclusion: a frontmatter block holding only the identity collapses away', () => {
    expect(textContentHash(`---\nvmark:\n  id: ${ID}\n---\n${BARE}`)).toBe(BARE_HASH)
    expect(textContentHash(`---\nvmark:\n  id: ${ID}\n  schema: character\n---\n${BARE}`)).toBe(BARE_HASH)
  })

  it('hash SHA-256 of the masked canonical UTF-8 bytes with the sha256: prefix', () => {
    expect(textContentHash('café\n')).toBe(`sha256:${createHash('sha256').update(Buffer.from('café\n', 'utf8')).digest('hex')}`)
  })

  it('§3.1 NFC: composed and decomposed forms hash alike', () => {
    expect(textContentHash('café\n')).toBe(textContentHash('cafe\u0301\n'))
    expect(canonicalText('cafe\u0301')).toBe('caf\u00e9')
  })

  it('§3.1 line endings: CRLF and lone CR become LF, in frontmatter too', () => {
    expect(textContentHash('a\r\nb\r')).toBe(textContentHash('a\nb\n'))
    expect(canonicalText('x\r\ny\rz')).toBe('x\ny\nz')
    expect(textContentHash(`---\r\ntitle: Scene\r\nvmark:\r\n  id: ${ID}\r\n---\r\n# Scene 12\r\nElena waited in the rain.\r\n`)).toBe(AUTHOR_FRONTMATTER_HASH)
  })

  it('§3.1 step 4: trailing whitespace, final newline and indentation are content', () => {
    expect(textContentHash('a\n')).not.toBe(textContentHash('a'))
    expect(textContentHash('a \n')).not.toBe(textContentHash('a\n'))
    expect(textContentHash('  a\n')).not.toBe(textContentHash('a\n'))
  })

  it('§3.4 binary: invalid UTF-8 and binary extensions hash the raw bytes, no canonicalization', () => {
    const invalid = Uint8Array.from([0xff, 0xfe, 0x00, 0x0d, 0x0a])
    expect(hashFileContent(invalid, 'notes.md')).toEqual({ kind: 'binary', contentHash: binaryContentHash(invalid), snapshotBytes: invalid })
    const crlf = Buffer.from('a\r\nb', 'utf8')
    expect(hashFileContent(crlf, 'art/ref.PNG').contentHash).toBe(binaryContentHash(crlf))
    expect(binaryContentHash(crlf)).not.toBe(textContentHash('a\r\nb'))
    expect(hashFileContent(crlf, 'notes.md')).toMatchObject({ kind: 'text', contentHash: textContentHash('a\nb') })
  })

  it('§4.2 the text snapshot bytes are exactly the hashed bytes, identity masked', () => {
    const content = hashFileContent(Buffer.from(`---\nvmark:\n  id: ${ID}\n---\n${BARE}`, 'utf8'), 'scene.md')
    expect(Buffer.from(content.snapshotBytes).toString('utf8')).toBe(BARE)
    expect(`sha256:${createHash('sha256').update(content.snapshotBytes).digest('hex')}`).toBe(content.contentHash)
  })

  it('a byte order mark is content (kept, not stripped by decoding)', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BARE, 'utf8')])
    expect(hashFileContent(withBom, 'scene.md').contentHash).not.toBe(BARE_HASH)
  })
})

describe('identity masking edge cases (spec §2.1, §3.2)', () => {
  it('keeps other keys under vmark, and the vmark: line with them', () => {
    expect(maskIdentity(`---\nvmark:\n  id: ${ID}\n  future: x\n---\nbody\n`)).toBe('---\nvmark:\n  future: x\n---\nbody\n')
  })

  it('leaves text without frontmatter, and an unterminated fence, untouched', () => {
    expect(maskIdentity(BARE)).toBe(BARE)
    const broken = '---\nvmark:\n  id: xyz\nno closing fence\n'
    expect(maskIdentity(broken)).toBe(broken)
    expect(frontmatterIdentity(broken)).toMatchObject({ status: 'malformed' })
  })

  it('is idempotent', () => {
    const once = maskIdentity(`---\ntitle: Scene\nvmark:\n  id: ${ID}\n---\nbody\n`)
    expect(once).toBe('---\ntitle: Scene\n---\nbody\n')
    expect(maskIdentity(once)).toBe(once)
  })

  it('masks only top-level vmark:, at the block’s own indentation', () => {
    const nested = `---\nauthor:\n  vmark:\n    id: ${ID}\n---\nbody\n`
    expect(maskIdentity(nested)).toBe(nested)
    const deeper = `---\nvmark:\n  other:\n    id: keep\n  id: ${ID}\n---\nbody\n`
    expect(maskIdentity(deeper)).toBe('---\nvmark:\n  other:\n    id: keep\n---\nbody\n')
    const notAKey = `---\nvmarker:\n  id: ${ID}\n---\nbody\n`
    expect(maskIdentity(notAKey)).toBe(notAKey)
  })

  it('keeps an already empty frontmatter block, and a vmark: without reserved children', () => {
    expect(maskIdentity('---\n---\nbody\n')).toBe('---\n---\nbody\n')
    expect(maskIdentity('---\nvmark:\n---\nbody\n')).toBe('---\nvmark:\n---\nbody\n')
  })

  it('handles a closing fence at the end of the text, and a body after an emptied block', () => {
    expect(maskIdentity(`---\nvmark:\n  id: ${ID}\n---`)).toBe('')
    expect(maskIdentity(`---\ntitle: T\nvmark:\n  id: ${ID}\n---`)).toBe('---\ntitle: T\n---')
  })

  it('reads the identity the same line-based way (quotes and comments stripped)', () => {
    expect(frontmatterIdentity(`---\ntitle: T\nvmark:\n  id: "${ID}" # assigned\n  schema: character\n---\n`)).toEqual({ status: 'present', id: ID, schema: 'character' })
    expect(frontmatterIdentity(BARE)).toEqual({ status: 'none' })
  })

  it('an empty frontmatter block given an identity is deleted by masking (the spec rule taken literally)', () => {
    // §3.2 deletes a block emptied by the masking; an already empty block is not emptied by it. So identity
    // assignment into `---\n---\n` changes the hash, the one case where §3.3 does not hold as stated.
    expect(textContentHash(`---\nvmark:\n  id: ${ID}\n---\nbody\n`)).toBe(textContentHash('body\n'))
    expect(textContentHash('---\n---\nbody\n')).not.toBe(textContentHash('body\n'))
  })

  const line = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', '-', 'é', 'v', 'm', 'r', 'k', '\t'), maxLength: 12 })
  it('property (§3.3): adding the identity block to any frontmatter, or to none, leaves the hash unchanged', () => {
    fc.assert(
      fc.property(
        fc.option(fc.array(line.filter((l) => l !== '---' && !/^vmark:/.test(l) && !/^[ \t]/.test(l)), { minLength: 1, maxLength: 4 }), { nil: undefined }),
        fc.string({ maxLength: 40 }),
        fc.boolean(),
        fc.uuid(),
        (authorLines, body, withSchema, id) => {
          const identity = `vmark:\n  id: ${id}\n${withSchema ? '  schema: scene\n' : ''}`
          const original = authorLines === undefined ? body : `---\n${authorLines.map((l) => `${l}\n`).join('')}---\n${body}`
          const withId = authorLines === undefined ? `---\n${identity}---\n${body}` : `---\n${authorLines.map((l) => `${l}\n`).join('')}${identity}---\n${body}`
          if (authorLines === undefined && body.startsWith('---')) return // the body would itself open a frontmatter block
          expect(textContentHash(withId)).toBe(textContentHash(original))
        },
      ),
      fuzzParameters({ numRuns: 300 }),
    )
  })
})

/** The spec's formula written out, independently of revision.ts. */
function specRevision(contentHash: string, parents: string[]): string {
  const preimage = `vmark-rev\n${contentHash}\n${[...parents].sort().map((p) => `${p}\n`).join('')}`
  return `rev1:${createHash('sha256').update(preimage, 'utf8').digest('hex')}`
}

describe('revision ids (spec §2.3)', () => {
  const root = revisionId(BARE_HASH)
  const other = revisionId(AUTHOR_FRONTMATTER_HASH)

  it('follow the spec formula for roots and merges', () => {
    expect(root).toBe(specRevision(BARE_HASH, []))
    expect(root).toBe(`rev1:${createHash('sha256').update(`vmark-rev\n${BARE_HASH}\n`).digest('hex')}`)
    expect(revisionId(BARE_HASH, [other, root])).toBe(specRevision(BARE_HASH, [root, other]))
  })

  it('do not depend on parent order', () => {
    expect(revisionId(BARE_HASH, [root, other])).toBe(revisionId(BARE_HASH, [other, root]))
  })

  it('A → B → A: the same content again is a different revision', () => {
    const b = revisionId(AUTHOR_FRONTMATTER_HASH, [root])
    const again = revisionId(BARE_HASH, [b])
    expect(again).not.toBe(root)
    expect(new Set([root, b, again]).size).toBe(3)
  })

  it('refuse a content hash or parent not in spec form', () => {
    expect(() => revisionId('sha256:ABC')).toThrow(RangeError)
    expect(() => revisionId(BARE_HASH, ['rev-a1b2c3'])).toThrow(RangeError)
  })
})

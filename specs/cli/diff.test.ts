import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createTwoFilesPatch, diffWords } from 'diff'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Issue 29 item 3: `quire diff PATH_OR_ID REV_A [REV_B] [--words]` shows what changed between two revisions, against
 * an oracle computed from the texts the test itself wrote at each revision.
 */

const newHome = useTempHomes()

async function ok(args: string[], home: string): Promise<string> {
  const result = await runCli(args, { home })
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' })
  return result.stdout
}

describe('quire diff (issue 29 item 3)', () => {
  it('a unified diff between any two revisions (the second defaulting to now), and word by word', async () => {
    const home = await newHome()
    const texts = ['# Notes\n\nalpha beta gamma\n\nsecond paragraph\n', '# Notes\n\nalpha BETA gamma delta\n\nsecond paragraph\n', '# Notes 文字\n\nalpha BETA gamma delta\n\nthird 😀 paragraph\nmore\n']
    const file = join(home, 'notes.md')
    await writeFile(file, texts[0]!)
    const [docId, first] = (await ok(['doc', 'create', file], home)).trim().split(' ') as [string, string]
    const revisions = [first]
    for (const text of texts.slice(1)) {
      const next = join(home, `next-${revisions.length}.md`)
      await writeFile(next, text)
      revisions.push((await ok(['doc', 'write', docId, next], home)).trim())
    }
    for (const [a, b] of [[0, 1], [1, 2], [0, 2], [2, 0]] as const) {
      expect(await ok(['diff', docId, revisions[a]!, revisions[b]!], home)).toBe(createTwoFilesPatch(`${docId}@${revisions[a]}`, `${docId}@${revisions[b]}`, texts[a]!, texts[b]!, undefined, undefined, { context: 3 }))
    }
    expect(await ok(['diff', file, revisions[0]!], home)).toBe(createTwoFilesPatch(`${file}@${revisions[0]}`, `${file}@now`, texts[0]!, texts[2]!, undefined, undefined, { context: 3 }))
    const words = diffWords(texts[0]!, texts[1]!).map((part) => (part.added ? `{+${part.value}+}` : part.removed ? `[-${part.value}-]` : part.value)).join('')
    expect(await ok(['diff', docId, revisions[0]!, revisions[1]!, '--words'], home)).toBe(words)
    expect(words).toContain('[-beta-]{+BETA+}')
    const refused = await runCli(['diff', docId, 'yesterday'], { home })
    expect({ code: refused.code, stderr: refused.stderr.split('\n')[0] }).toEqual({ code: 2, stderr: 'quire: "yesterday" is not a revision token (rev-...)' })
  })
})

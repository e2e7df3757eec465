import { describe, expect, it } from 'vitest'
import type { Actor } from '../../core/events/actor.js'
import { openEngineHome } from '../../adapters/host/engineHome.js'
import { runCli } from '../support/cli.js'
import { personTypes } from '../support/personTypes.js'
import { useTempHomes } from '../support/tempHome.js'
import { withTestStore } from '../support/testStore.js'

/**
 * Issue 29 item 3: `quire blame PATH_OR_ID [--at REV] [--json]` says who last changed each line and when: the person,
 * each assistant by name; checked against the changes the test made (each to lines it knows) and, for the text, against
 * `quire replay` at the same revision.
 */

const newHome = useTempHomes()
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const CODEX: Actor = { kind: 'mcp', principal: 'codex', connection: 'c-2' }

interface Line { line: number; text: string; by: string; at: number; position: number }
interface Span { from: number; to: number; by: string; position: number }

describe('quire blame (issue 29 item 3)', () => {
  it('each line with who last changed it and when, now and at an earlier revision; --json with spans', async () => {
    const home = await newHome()
    const path = `${home}/plan.md`
    const engine = await openEngineHome(home, withTestStore(home, {}))
    let docId: string
    let afterClaude: string
    const at: Record<string, { position: number; at: number }> = {}
    try {
      ;({ docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'one\ntwo\nthree\n', path, title: 'plan', origin: 'file', actor: { kind: 'user' } }))
      afterClaude = (await engine.commands.documents.write({ docId, content: 'one\nTWO by claude\nthree\n', actor: CLAUDE })).revision
      await personTypes(engine, docId, (text) => text.insert('one\nTWO by claude\nthree'.length, '!'))
      await engine.commands.documents.write({ docId, content: 'one\nTWO by claude\nthree!\nfour\n', actor: CODEX })
      const last = new Map<string, { position: number; at: number }>()
      for await (const event of engine.store.readStream(`doc:${docId}`)) {
        if (event.type !== 'document.created' && event.type !== 'document.changed') continue
        const who = event.actor.kind === 'mcp' ? event.actor.principal : event.actor.kind === 'peer' ? 'typed' : 'created'
        if (!last.has(who) || who !== 'created') last.set(who, { position: event.position, at: event.at })
      }
      for (const [who, where] of last) at[who] = where
    } finally {
      await engine.close()
    }
    const expectedNow = [
      { line: 1, text: 'one', by: 'person', ...at.created! },
      { line: 2, text: 'TWO by claude', by: 'claude', ...at.claude! },
      { line: 3, text: 'three!', by: 'person', ...at.typed! },
      { line: 4, text: 'four', by: 'codex', ...at.codex! },
    ]
    const json = await runCli(['blame', path, '--json'], { home })
    expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: '' })
    const blame = JSON.parse(json.stdout) as { docId: string; lines: Line[]; spans: Span[] }
    expect(blame.docId).toBe(docId)
    expect(blame.lines).toEqual(expectedNow)
    const replayed = (await runCli(['replay', '--doc', docId], { home })).stdout
    expect(blame.lines.map((line) => `${line.text}\n`).join('')).toBe(replayed)
    expect(blame.spans.map(({ from, to, by }) => [from, to, by])).toEqual([[0, 4, 'person'], [4, 18, 'claude'], [18, 25, 'person'], [25, 30, 'codex']])

    const earlier = JSON.parse((await runCli(['blame', docId, '--at', afterClaude, '--json'], { home })).stdout) as { lines: Line[] }
    expect(earlier.lines).toEqual([
      { line: 1, text: 'one', by: 'person', ...at.created! },
      { line: 2, text: 'TWO by claude', by: 'claude', ...at.claude! },
      { line: 3, text: 'three', by: 'person', ...at.created! },
    ])
    const text = (await runCli(['blame', path], { home })).stdout.split('\n').filter((line) => line !== '')
    expect(text.map((line) => line.split(/\s+/)[0])).toEqual(['person', 'claude', 'person', 'codex'])
    expect(text[1]).toContain(new Date(at.claude!.at).toISOString())
    expect(text[1]!.endsWith('TWO by claude')).toBe(true)
  })
})

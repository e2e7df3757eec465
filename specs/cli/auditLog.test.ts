import { describe, expect, it } from 'vitest'
import type { Actor } from '../../core/events/actor.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { openEngineHome } from '../../adapters/host/engineHome.js'
import { runCli } from '../support/cli.js'
import { personTypes } from '../support/personTypes.js'
import { useTempHomes } from '../support/tempHome.js'
import { withTestStore } from '../support/testStore.js'

/**
 * Issue 29 item 3: `quire log`'s filters answer from the audit index what a plain read of the log says: each filter
 * against an oracle computed from the events themselves; an aborted write is marked; a document is found by the
 * path it left after a move; `quire verify` compares the read models with a rebuild and `quire rebuild` refolds them.
 */

const newHome = useTempHomes()
const CLAUDE: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const CODEX: Actor = { kind: 'mcp', principal: 'codex', connection: 'c-2' }

interface Built {
  readonly events: RecordedEvent[]
  readonly first: string
  readonly second: string
  readonly aborted: number
  readonly pathBefore: string
  readonly pathAfter: string
}

/** A log with two documents, assistants' writes (one aborted by the person's typing), typing, a move and settings. */
async function buildLog(home: string): Promise<Built> {
  const engine = await openEngineHome(home, withTestStore(home, {}))
  try {
    const pathBefore = `${home}/notes.md`
    const pathAfter = `${home}/archive/notes.md`
    const { docId: first } = await engine.commands.documents.create({ kind: 'markdown', content: 'alpha\n', path: pathBefore, title: 'notes', origin: 'file', actor: { kind: 'user' } })
    const { docId: second } = await engine.commands.documents.create({ kind: 'markdown', content: 'one\n', path: null, title: 'b', origin: 'untitled', actor: { kind: 'user' } })
    await engine.commands.documents.write({ docId: first, content: 'alpha beta\n', actor: CLAUDE })
    for (const letter of 'xyz') await personTypes(engine, first, (text) => text.insert(text.length, letter))
    await engine.commands.documents.write({ docId: second, content: 'one two\n', actor: CODEX })
    // A write whose change never came: the person typed while it was being recorded, so it was aborted.
    const state = (await engine.documents.get(first))!
    const journal = await engine.store.append([{ stream: `doc:${first}`, events: [{ type: 'journal.recorded', actor: CLAUDE, data: { operation: 'write', text: 'gone\n', length: 5, baseRevision: state.revision } }] }])
    await journal.durable
    const aborted = journal.streams[0]!.events[0]!.position
    await personTypes(engine, first, (text) => text.insert(0, '!'))
    await (await engine.store.append([{ stream: 'workspace', events: [{ type: 'document.retargeted', actor: { kind: 'system' }, data: { docId: first, path: pathAfter } }] }])).durable
    await engine.commands.documents.write({ docId: first, content: 'moved text\n', actor: CLAUDE })
    await (await engine.store.append([{ stream: 'settings', events: [{ type: 'setting.changed', actor: CODEX, data: { key: 'cjkFormatting.quoteStyle', value: 'corner' } }] }])).durable
    const events: RecordedEvent[] = []
    for await (const event of engine.store.readAll(0)) events.push(event)
    return { events, first, second, aborted, pathBefore, pathAfter }
  } finally {
    await engine.close()
  }
}

const positions = (stdout: string): number[] => stdout.split('\n').filter((line) => line.trim() !== '').map((line) => Number(line.trim().split(/\s+/)[0]))

async function logPositions(home: string, args: string[]): Promise<number[]> {
  const result = await runCli(['log', ...args], { home })
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' })
  return positions(result.stdout)
}

const byActor = (event: RecordedEvent): string => (event.actor.kind === 'mcp' ? event.actor.principal : event.actor.kind === 'peer' || event.actor.kind === 'user' ? 'person' : event.actor.kind)
const docOf = (event: RecordedEvent): string | undefined => (event.stream.startsWith('doc:') ? event.stream.slice(4) : ((event.data as { docId?: string }).docId))

describe('quire log filters answer from the audit index (issue 29 item 3)', () => {
  it('--actor, --type, --doc (by id, the path it left, the path it has), --since/--until, --after and combinations equal the oracle; aborted writes are marked', async () => {
    const home = await newHome()
    const built = await buildLog(home)
    const { events } = built
    const expected = (keep: (event: RecordedEvent) => boolean) => events.filter(keep).map((event) => event.position)

    expect(await logPositions(home, [])).toEqual(expected(() => true))
    for (const actor of ['claude', 'codex', 'person', 'system']) expect({ actor, got: await logPositions(home, ['--actor', actor]) }).toEqual({ actor, got: expected((event) => byActor(event) === actor) })
    expect(await logPositions(home, ['--type', 'journal.recorded'])).toEqual(expected((event) => event.type === 'journal.recorded'))
    expect(await logPositions(home, ['--type', 'document.', '--type', 'setting.changed'])).toEqual(expected((event) => event.type.startsWith('document.') || event.type === 'setting.changed'))
    const ofFirst = expected((event) => docOf(event) === built.first)
    expect(await logPositions(home, ['--doc', built.first])).toEqual(ofFirst)
    expect(await logPositions(home, ['--doc', built.pathBefore])).toEqual(ofFirst)
    expect(await logPositions(home, ['--doc', built.pathAfter])).toEqual(ofFirst)
    expect(await logPositions(home, ['--doc', built.second, '--actor', 'codex'])).toEqual(expected((event) => docOf(event) === built.second && byActor(event) === 'codex'))
    const middle = events[Math.floor(events.length / 2)]!
    const since = new Date(middle.at).toISOString()
    expect(await logPositions(home, ['--since', since])).toEqual(expected((event) => event.at >= middle.at))
    expect(await logPositions(home, ['--until', since, '--actor', 'person'])).toEqual(expected((event) => event.at <= middle.at && byActor(event) === 'person'))
    expect(await logPositions(home, ['--since', '1h'])).toEqual(expected(() => true))
    expect(await logPositions(home, ['--until', '1h'])).toEqual([])
    expect(await logPositions(home, ['--after', String(middle.position), '--type', 'document.changed'])).toEqual(expected((event) => event.position > middle.position && event.type === 'document.changed'))

    const journals = (await runCli(['log', '--type', 'journal.recorded'], { home })).stdout.split('\n').filter((line) => line !== '')
    const marked = journals.filter((line) => line.includes('[NOT APPLIED'))
    expect(marked.map((line) => positions(line)[0])).toEqual([built.aborted])

    const json = (await runCli(['log', '--json', '--type', 'journal.recorded'], { home })).stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { position: number; outcome?: string; data: unknown })
    expect(json.map((line) => [line.position, line.outcome])).toEqual(expected((event) => event.type === 'journal.recorded').map((position) => [position, position === built.aborted ? 'not-applied' : 'applied']))
    expect(json.every((line) => line.data !== undefined)).toBe(true)

    // The person's four keystrokes on the first document: three in a row, then one after the aborted write's entry.
    const folded = await runCli(['log', '--no-keystrokes', '--doc', built.first], { home })
    const typing = folded.stdout.split('\n').filter((line) => line.includes(' typing '))
    expect(typing.map((line) => line.match(/(\d+) keystrokes?/)?.[1])).toEqual(['3', '1'])
    expect(positions(folded.stdout).length).toBe(ofFirst.length - 2)

    const verified = await runCli(['verify'], { home })
    expect(verified.stdout).toContain('read model audit:')
    expect(verified.stdout).toContain('read model history:')
    expect({ code: verified.code, stdout: verified.stdout }).toMatchObject({ code: 0 })
    const rebuilt = await runCli(['rebuild', 'audit'], { home })
    expect(rebuilt.stdout.trim()).toBe(`audit: rebuilt from the log up to position ${events.length}`)
    expect(await logPositions(home, ['--doc', built.pathBefore])).toEqual(ofFirst)
    const history = await runCli(['history', built.pathBefore], { home })
    expect(history.stdout.split('\n')[0]).toBe(`history of ${built.first} (moved: its file was ${built.pathBefore}, it is now ${built.pathAfter})`)
    expect(history.stdout).toContain('[NOT APPLIED]')
  })
})

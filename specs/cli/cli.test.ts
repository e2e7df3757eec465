import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { onStdoutLines, runCli, supportScript, type CliResult } from '../support/cli.js'
import { FRIENDSFOREVER_TRACE } from '../support/dataFiles.js'
import { useTempHomes } from '../support/tempHome.js'

/** The `quire` command, run as a user runs it: the compiled binary in a child process. */

const newDir = useTempHomes()
const TRACE = FRIENDSFOREVER_TRACE

const lines = (text: string): string[] => text.split('\n').filter((line) => line.length > 0)
/** Positions of `quire log` lines; also asserts the command succeeded. */
const positionsOf = (result: CliResult): number[] => lines(ok(result)).map((line) => Number.parseInt(line.trim().split(/\s+/)[0]!, 10))

interface LogLine {
  position: number
  at: string
  actor: { kind: string }
  type: string
  v: number
  stream: string
  streamVersion: number
  summary: string
  data: Record<string, unknown>
}

const jsonLines = (result: CliResult): LogLine[] => lines(ok(result)).map((line) => JSON.parse(line) as LogLine)

/** Asserts a clean success and returns stdout. */
function ok(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout
}

describe('quire doc, log and replay', () => {
  // About forty commands in turn, most opening the data directory (0.6 s each when idle; 44 s in a loaded CI run).
  it('creates and writes documents, lists the events, and replays any revision byte for byte', async () => {
    const home = await newDir()
    const work = await newDir()
    const first = 'line one\nline two — ü 漢字 🙂' // no trailing newline
    const second = 'line one\nline 2\n\n'
    const third = 'completely different\ttext'
    await writeFile(join(work, 'notes.md'), first)
    await writeFile(join(work, 'second.md'), second)
    await writeFile(join(work, 'third.md'), third)
    await writeFile(join(work, 'other.md'), 'other document\n')

    // Relative paths resolve against the working directory.
    const created = ok(await runCli(['doc', 'create', 'notes.md'], { home, cwd: work }))
    const match = /^(d-[0-9a-z]+) (rev-[0-9a-z]+)\n$/.exec(created)
    expect(match, created).not.toBeNull()
    const docId = match![1]!
    const rev1 = match![2]!
    const rev2 = ok(await runCli(['doc', 'write', 'notes.md', 'second.md'], { home, cwd: work })).trim()
    const rev3 = ok(await runCli(['doc', 'write', docId, join(work, 'third.md')], { home })).trim()
    expect(new Set([rev1, rev2, rev3]).size).toBe(3)
    expect(ok(await runCli(['doc', 'write', docId, join(work, 'third.md')], { home }))).toBe(`${rev3} (unchanged)\n`)
    const otherId = ok(await runCli(['doc', 'create', join(work, 'other.md')], { home })).split(' ')[0]!

    const listed = lines(ok(await runCli(['doc', 'list'], { home })))
    expect(listed).toHaveLength(2)
    expect(listed.find((line) => line.startsWith(docId))).toContain(join(work, 'notes.md'))

    // The log: created + saved (the file's content), then journal + change per write, then the other document.
    const stream = `doc:${docId}`
    const otherStream = `doc:${otherId}`
    const events = jsonLines(await runCli(['log', '--json'], { home }))
    expect(events.map((event) => [event.position, event.type, event.stream, event.streamVersion])).toEqual([
      [1, 'document.created', stream, 1],
      [2, 'document.saved', stream, 2],
      [3, 'journal.recorded', stream, 3],
      [4, 'document.changed', stream, 4],
      [5, 'journal.recorded', stream, 5],
      [6, 'document.changed', stream, 6],
      [7, 'document.created', otherStream, 1],
      [8, 'document.saved', otherStream, 2],
    ])
    // document.saved is schema version 2 since it records the revision it saved (the one-owner issue), journal.recorded
    // since it may hold a large text as its change (issue 16); the rest are 1.
    const versionTwo = new Set(['document.saved', 'journal.recorded'])
    expect(events.every((event) => event.actor.kind === 'user' && event.v === (versionTwo.has(event.type) ? 2 : 1) && !Number.isNaN(Date.parse(event.at)))).toBe(true)
    expect(events[2]!.data).toMatchObject({ operation: 'write', text: second, baseRevision: rev1 })
    expect(events[5]!.data).toMatchObject({ journal: 5 })
    // Bytes are lossless base64.
    const update = Buffer.from((events[3]!.data.update as { base64: string }).base64, 'base64')
    expect(update.length).toBeGreaterThan(0)
    expect(events[3]!.summary).toBe(`${update.length} B update applying journal entry 3`)

    const text = await runCli(['log'], { home })
    expect(positionsOf(text)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    const textLines = lines(text.stdout)
    expect(textLines[0]).toMatch(new RegExp(`^\\s+1  \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  user\\s+document\\.created\\s+${stream}  markdown ${join(work, 'notes.md')} from file`))
    expect(textLines[4]).toContain(`write of ${third.length} chars on ${rev2}`)

    expect(positionsOf(await runCli(['log', '--since', '4'], { home }))).toEqual([5, 6, 7, 8])
    // Position 1 and 2 share one chunk (created + saved): --since can start inside a chunk.
    expect(positionsOf(await runCli(['log', '--since', '1'], { home }))).toEqual([2, 3, 4, 5, 6, 7, 8])
    expect(positionsOf(await runCli(['log', '--since', '8'], { home }))).toEqual([])
    expect(positionsOf(await runCli(['log', '--limit', '3'], { home }))).toEqual([1, 2, 3])
    expect(positionsOf(await runCli(['log', '--since', '2', '--limit', '2'], { home }))).toEqual([3, 4])
    expect(positionsOf(await runCli(['log', '--stream', otherStream], { home }))).toEqual([7, 8])
    expect(positionsOf(await runCli(['log', '--stream', stream, '--since', '3', '--limit', '2'], { home }))).toEqual([4, 5])
    expect(positionsOf(await runCli(['log', '--stream', 'doc:nope'], { home }))).toEqual([])
    const streamJson = jsonLines(await runCli(['log', '--stream', otherStream, '--json'], { home }))
    expect(streamJson.map((event) => event.position)).toEqual([7, 8])

    // replay prints the content and nothing else: by id, by relative and absolute path, at each revision.
    const replay = async (args: string[], cwd?: string): Promise<Buffer> => {
      const result = await runCli(['replay', ...args], { home, cwd })
      ok(result)
      return result.stdoutBytes
    }
    expect(await replay(['--doc', docId])).toEqual(Buffer.from(third))
    expect(await replay(['--doc', 'notes.md'], work)).toEqual(Buffer.from(third))
    expect(await replay(['--doc', join(work, 'notes.md')])).toEqual(Buffer.from(third))
    expect(await replay(['--doc', docId, '--at', rev1])).toEqual(Buffer.from(first, 'utf8'))
    expect(await replay(['--doc', 'notes.md', '--at', rev2], work)).toEqual(Buffer.from(second))
    expect(await replay(['--doc', docId, '--at', rev3])).toEqual(Buffer.from(third))
    expect(await replay(['--doc', otherId])).toEqual(Buffer.from('other document\n'))

    // Not a revision of this document: past the head, a journal entry's position, another document's revision.
    for (const [doc, at] of [[docId, 'rev-zzzz'], [docId, 'rev-3'], [docId, 'rev-7'], [otherId, rev1]] as const) {
      const result = await runCli(['replay', '--doc', doc, '--at', at], { home })
      expect({ doc, at, code: result.code, stdout: result.stdout }).toEqual({ doc, at, code: 1, stdout: '' })
      expect(result.stderr).toMatch(new RegExp(`^quire: .*${at}.*\\n$`))
      expect(result.stderr).not.toContain('unexpected error')
    }
    for (const doc of ['d-nosuchdoc', join(work, 'missing.md')]) {
      const result = await runCli(['replay', '--doc', doc], { home })
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' })
      expect(result.stderr).toBe(`quire: no document has the id or path ${doc}\n`)
    }

    const verified = ok(await runCli(['verify'], { home }))
    expect(verified).toContain('log: 8 events in 2 streams, head position 8')
    expect(verified).toContain('ok: the live state equals the state rebuilt from the log')
  }, 150_000)
})

describe('quire ingest-trace', () => {
  it('ingests the friendsforever trace as peer edits whose replay is exactly the trace end content', async () => {
    const home = await newDir()
    const trace = JSON.parse(gunzipSync(await readFile(TRACE)).toString('utf8')) as { endContent: string }
    expect(trace.endContent.length).toBeGreaterThan(1000)

    const ingested = await runCli(['ingest-trace', TRACE], { home, timeoutMs: 45_000 })
    const output = lines(ok(ingested))
    expect(output[0]).toMatch(/^ingested \d+ peer edits in/)
    const docId = output.at(-1)!
    expect(docId).toMatch(/^d-[0-9a-z]+$/)

    const replayed = await runCli(['replay', '--doc', docId], { home })
    ok(replayed)
    expect(replayed.stdout.length).toBe(trace.endContent.length)
    expect(replayed.stdout === trace.endContent).toBe(true)

    const head = jsonLines(await runCli(['log', '--stream', `doc:${docId}`, '--limit', '2', '--json'], { home }))
    expect(head.map((event) => [event.type, event.actor])).toEqual([
      ['document.created', { kind: 'system' }],
      ['document.changed', { kind: 'peer', peer: 'trace:friendsforever' }],
    ])

    // Peer edits are stored many to a chunk: --since and --limit cut through chunks, on the log and on the stream.
    const inside = jsonLines(await runCli(['log', '--since', '1000', '--limit', '3', '--json'], { home }))
    expect(inside.map((event) => [event.position, event.streamVersion, event.stream])).toEqual(
      [1001, 1002, 1003].map((position) => [position, position, `doc:${docId}`]),
    )
    expect(positionsOf(await runCli(['log', '--stream', `doc:${docId}`, '--since', '2000', '--limit', '2'], { home }))).toEqual([2001, 2002])

    const verified = ok(await runCli(['verify'], { home, timeoutMs: 45_000 }))
    expect(verified).toContain('documents: 1 rebuilt and compared')
    expect(verified).toContain('ok: the live state equals the state rebuilt from the log')
  })
})

describe('quire and the data directory', () => {
  it('refuses a data directory held by another process, naming it and the holder, without hanging', async () => {
    const home = await newDir()
    const holder = spawn(process.execPath, [supportScript('holdEngine'), home], { stdio: ['pipe', 'pipe', 'pipe'] })
    try {
      const ready = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the holder never got ready')), 15_000)
        onStdoutLines(holder, (line) => {
          clearTimeout(timer)
          resolve(line)
        })
        holder.on('exit', (code) => reject(new Error(`the holder exited with ${code}`)))
      })
      expect(ready).toBe(`ready ${holder.pid}`)

      for (const args of [['status'], ['log'], ['verify']]) {
        const refused = await runCli(args, { home, timeoutMs: 15_000 })
        expect({ args, code: refused.code, timedOut: refused.timedOut, stdout: refused.stdout }).toEqual({
          args, code: 1, timedOut: false, stdout: '',
        })
        expect(refused.stderr).toContain(`the data directory ${home} is in use`)
        expect(refused.stderr).toContain(`(pid ${holder.pid})`)
        expect(refused.stderr).not.toContain('unexpected error')
      }
    } finally {
      const exited = new Promise<number | null>((resolve) => holder.on('close', (code) => resolve(code)))
      holder.stdin!.end()
      expect(await exited).toBe(0)
    }
    // Once the holder is gone, the directory opens.
    expect(ok(await runCli(['status'], { home }))).toContain(`data directory: ${home}`)
  })

  it('honours QUIRE_HOME when --home is absent, and --home over QUIRE_HOME', async () => {
    const home = await newDir()
    const elsewhere = await newDir()
    const file = join(await newDir(), 'env.md')
    await writeFile(file, 'from the environment\n')
    const env = { ...process.env, QUIRE_HOME: home }

    expect(ok(await runCli(['status'], { env }))).toContain(`data directory: ${home}\n`)
    const docId = ok(await runCli(['doc', 'create', file], { env })).split(' ')[0]!
    // The document landed in QUIRE_HOME, and --home reads the same place.
    expect(ok(await runCli(['replay', '--doc', docId], { home }))).toBe('from the environment\n')
    expect(ok(await runCli(['replay', '--doc', docId], { env }))).toBe('from the environment\n')
    // --home wins over QUIRE_HOME.
    expect(ok(await runCli(['--home', elsewhere, 'status'], { env }))).toContain(`data directory: ${elsewhere}\n`)
    const missing = await runCli(['--home', elsewhere, 'replay', '--doc', docId], { env })
    expect({ code: missing.code, stdout: missing.stdout }).toEqual({ code: 1, stdout: '' })
  })

  // An unknown command answers one line instead (firstHourFixes.test.ts).
  it('exits 2 with the usage on stderr for usage errors', async () => {
    const home = await newDir()
    const file = join(await newDir(), 'a.md')
    await writeFile(file, 'a')
    const docId = ok(await runCli(['doc', 'create', file], { home })).split(' ')[0]!
    const cases: [string[], string][] = [
      [['replay'], 'replay needs --doc PATH_OR_ID'],
      [['replay', '--at', 'rev-1'], 'replay needs --doc PATH_OR_ID'],
      [['replay', '--doc', docId, '--at', 'banana'], '"banana" is not a revision token'],
      [['log', '--since', 'abc'], '"abc" is not a time: give an ISO 8601 time'],
      [['log', '--after', 'abc'], '--after takes a non-negative whole number, not "abc"'],
      [['log', '--since=-1'], '"-1" is not a time'],
      [['log', '--after=-1'], '--after takes a non-negative whole number, not "-1"'],
      [['log', '--limit', '1.5'], '--limit takes a non-negative whole number, not "1.5"'],
      [['log', '--bogus'], '--bogus'],
      [['doc'], 'doc needs create, write or list'],
      [['doc', 'create'], 'doc create needs exactly one FILE'],
      [['ingest-trace'], 'ingest-trace needs exactly one FILE'],
    ]
    for (const [args, message] of cases) {
      const result = await runCli(args, { home })
      expect({ args, code: result.code, stdout: result.stdout, stderr: result.code === 2 ? "" : result.stderr }).toEqual({ args, code: 2, stdout: "", stderr: "" })
      expect(result.stderr).toContain(message)
      expect(result.stderr).toContain('usage: quire [--home DIR] <command>')
    }
    const help = await runCli(['help'], { home })
    expect(ok(help)).toContain('usage: quire [--home DIR] <command>')
  })
})

describe('quire argument parsing', () => {
  // Regression: main.ts used to find the command's arguments with argv.indexOf(name), which here hits the --home value.
  it('a data directory named like the command (--home log log) does not shift the command\'s arguments', async () => {
    const cwd = await newDir()
    const result = await runCli(['--home', 'log', 'log', '--limit', '1'], { cwd })
    expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({ code: 0, stderr: '', stdout: '' })
  })
})

describe('quire settings', () => {
  it('lists every setting, sets one typed like its default, refuses unknown keys and bad values, and records each change as an event', async () => {
    const home = await newDir()
    const listed = lines(ok(await runCli(['settings'], { home })))
    expect(listed.some((line) => /^autoApproveSaves\s+false$/.test(line))).toBe(true)
    expect(listed.some((line) => /^cjkFormatting\.quoteStyle\s+"curly"$/.test(line))).toBe(true)
    expect(listed.some((line) => /^cjkFormatting\.consecutivePunctuationLimit\s+0$/.test(line))).toBe(true)

    expect(ok(await runCli(['settings', 'set', 'cjkFormatting.quoteStyle', 'corner'], { home }))).toBe('cjkFormatting.quoteStyle = "corner"\n')
    expect(ok(await runCli(['settings', 'set', 'cjkFormatting.consecutivePunctuationLimit', '1'], { home }))).toBe('cjkFormatting.consecutivePunctuationLimit = 1\n')
    expect(ok(await runCli(['settings', 'set', 'cjkFormatting.fullwidthBrackets', 'on'], { home }))).toBe('cjkFormatting.fullwidthBrackets = true\n')

    for (const [args, message] of [
      [['settings', 'set', 'cjkFormatting.nope', 'true'], /unknown setting cjkFormatting\.nope/],
      [['settings', 'set', 'cjkFormatting.quoteStyle', 'fancy'], /not a valid value/],
      [['settings', 'set', 'cjkFormatting.fullwidthBrackets', 'maybe'], /true or false/],
      [['settings', 'set', 'cjkFormatting.consecutivePunctuationLimit', 'two'], /is a number/],
    ] as const) {
      const refused = await runCli(args, { home })
      expect(refused.code, refused.stderr).toBe(1)
      expect(refused.stderr).toMatch(message)
    }
    const after = lines(ok(await runCli(['settings'], { home })))
    expect(after.some((line) => /^cjkFormatting\.quoteStyle\s+"corner"$/.test(line))).toBe(true)
    expect(after.some((line) => /^cjkFormatting\.fullwidthBrackets\s+true$/.test(line))).toBe(true)
    const changes = jsonLines(await runCli(['log', '--json', '--stream', 'settings'], { home }))
    expect(changes.map((event) => [event.type, event.data])).toEqual([
      ['setting.changed', { key: 'cjkFormatting.quoteStyle', value: 'corner' }],
      ['setting.changed', { key: 'cjkFormatting.consecutivePunctuationLimit', value: 1 }],
      ['setting.changed', { key: 'cjkFormatting.fullwidthBrackets', value: true }],
    ])
  })
})

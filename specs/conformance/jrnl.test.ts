/**
 * The agent edit journal as `document.write` and the saves use it (TOOLS.md §12.3: JRNL.1–4, JRNL.10, JRNL.11,
 * JRNL.16–17; DOC.WRITE.17). Over stdio and HTTP: the answer shapes, INVALID_TEXT, and "durable means on disk"
 * (the server is SIGKILLed right after the answer and the log is read back with the CLI). In-process, with a log
 * whose writes can be stalled or failed (`interceptWrite`): the journal entry lands before the change, a log that
 * does not answer in time refuses the write and changes nothing, and a slow journal never turns a save into an error.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { FaultyFileSystem } from '../support/faultFs.js'
import {
  docOfTab, envelope, eventually, fileText, inode, launchFaulty, LogStall, ok, openTab, quire, readDoc, real, streamEvents, within,
  type FaultySession,
} from '../support/faultSession.js'
import { launch, launchDaemon, launchStdio, tempDir, type Session, type Transport } from '../support/mcpHarness.js'

const LONE_SURROGATES: Record<string, string> = {
  'lone high surrogate': 'a\uD800b',
  'lone low surrogate': 'a\uDC00b',
  'reversed pair': '\uDC00\uD800',
  'high at the very end': 'text ends with \uD83D',
  'low at the very start': '\uDE00 starts the text',
  'valid pair then a lone one': '😀 ok, then \uD83D alone',
  'one lone surrogate after 1 MiB of text': `${'x'.repeat(1024 * 1024)}\uDFFF`,
}

describe.each<Transport>(['stdio', 'http'])('JRNL over %s', (transport) => {
  let T: string
  let ws: string
  let session: Session

  beforeAll(async () => {
    T = await real(await tempDir('quire-jrnl-'))
    ws = join(T, 'ws')
    await mkdir(ws)
    session = await launch(transport, { workspaces: [ws] })
  })
  afterAll(async () => {
    await session?.close()
    await rm(T, { recursive: true, force: true })
  })

  it('JRNL.3 / DOC.WRITE.4 a successful write answers applied: true, a boolean durable, a new revision', async () => {
    const path = join(ws, 'shape.md')
    await writeFile(path, 'before\n')
    const tabId = await openTab(session, path)
    const before = await readDoc(session, tabId)
    const written = ok(await session.call('document', { action: 'write', tabId, content: 'after\n', expected_revision: before.revision }))
    expect(written.applied).toBe(true)
    expect(typeof written.durable).toBe('boolean')
    expect(written.revision).toEqual(expect.stringMatching(/^rev-/))
    expect(written.revision).not.toBe(before.revision)
    expect(await readDoc(session, tabId)).toMatchObject({ content: 'after\n', revision: written.revision })
  })

  it('JRNL.11 / DOC.WRITE.17 content with an unpaired UTF-16 surrogate is refused with INVALID_TEXT; content, revision and file unchanged', async () => {
    const path = join(ws, 'surrogates.md')
    await writeFile(path, 'clean\n')
    const tabId = await openTab(session, path)
    ok(await session.call('document', { action: 'write', tabId, content: 'clean, edited\n', save: false }))
    const before = await readDoc(session, tabId)
    const fileBefore = await inode(path)
    for (const [label, content] of Object.entries(LONE_SURROGATES)) {
      for (const extra of [{}, { save: false }, { expected_revision: before.revision }]) {
        const result = await session.call('document', { action: 'write', tabId, content, ...extra })
        expect(result.structured?.error, `${label} ${JSON.stringify(extra)}: ${result.text.slice(0, 200)}`).toBe('INVALID_TEXT')
        envelope(result, 'INVALID_TEXT')
      }
    }
    expect(await readDoc(session, tabId)).toEqual(before)
    expect(await fileText(path)).toBe('clean\n')
    expect(await inode(path)).toBe(fileBefore)
  })
})

describe('JRNL.4 durable: true means the journal record and the change are on disk (SIGKILL right after the answer)', () => {
  async function killedAfterWrite(start: (home: string, ws: string) => Promise<{ session: Session; child: () => ChildProcess | number }>) {
    const T = await real(await tempDir('quire-durable-'))
    const ws = join(T, 'ws')
    const home = join(T, 'home')
    await mkdir(ws)
    await mkdir(home)
    const path = join(ws, 'durable.md')
    await writeFile(path, 'on disk before\n')
    const { session, child } = await start(home, ws)
    try {
      const tabId = await openTab(session, path)
      const content = `durable ${Date.now()}\n`.repeat(50)
      const written = ok(await session.call('document', { action: 'write', tabId, content, save: false }))
      expect(written.durable).toBe(true)
      const process = child()
      if (typeof process === 'number') globalThis.process.kill(process, 'SIGKILL')
      else process.kill('SIGKILL')
      await new Promise((resolve) => setTimeout(resolve, 300))
      const replayed = await eventuallyCli(home, path)
      expect(replayed).toBe(content)
      const log = await quire(home, 'log', '--json')
      const types = log.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line).type as string)
      expect(types).toContain('journal.recorded')
    } finally {
      await session.close().catch(() => {})
      await rm(T, { recursive: true, force: true })
    }
  }

  /** `quire replay --doc PATH` once the killed process's lock is gone. */
  async function eventuallyCli(home: string, path: string): Promise<string> {
    let last = ''
    for (let attempt = 0; attempt < 40; attempt++) {
      const replay = await quire(home, 'replay', '--doc', path)
      if (replay.code === 0) return replay.stdout
      last = replay.stderr
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`quire replay kept failing: ${last}`)
  }

  it('JRNL.4 over stdio (quire mcp, embedded core)', async () => {
    await killedAfterWrite(async (home, ws) => {
      const session = await launchStdio({ home, workspaces: [ws] })
      const transport = session.client.transport as StdioClientTransport
      return { session, child: () => transport.pid! }
    })
  })

  it('JRNL.4 over HTTP (quire serve)', async () => {
    await killedAfterWrite(async (home, ws) => {
      const daemon = await launchDaemon({ home, workspaces: [ws] })
      const session = await daemon.connect()
      // Not daemon.stop(): after a SIGKILL the child's exitCode stays null and stop() would wait for an exit that
      // already happened.
      const close = async () => {
        await session.close()
        if (daemon.process.exitCode === null && daemon.process.signalCode === null) daemon.process.kill('SIGKILL')
      }
      return { session: { ...session, close }, child: () => daemon.process }
    })
  })
})

describe('JRNL in-process (a log that can be stalled or failed)', () => {
  let T: string
  let n = 0
  beforeAll(async () => {
    T = await real(await tempDir('quire-jrnl-ip-'))
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  async function fresh(options: { autoApproveSaves?: boolean } = {}): Promise<{ session: FaultySession; stall: LogStall; fs: FaultyFileSystem; file: string; ws: string }> {
    const ws = join(T, `ws${++n}`)
    await mkdir(ws)
    const file = join(ws, 'doc.md')
    await writeFile(file, 'original\n')
    const stall = new LogStall()
    const fs = new FaultyFileSystem()
    const session = await launchFaulty({ workspaces: [ws], stall, fs, ...options })
    return { session, stall, fs, file, ws }
  }

  const count = (events: Array<{ type: string }>, type: string) => events.filter((event) => event.type === type).length

  it('JRNL.1 the journal entry is on disk before the document changes: while it is being recorded, the text, revision and file are untouched', async () => {
    const { session, stall, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      const before = await readDoc(session, tabId)
      const held = stall.engage()
      const writing = session.call('document', { action: 'write', tabId, content: 'journaled first\n' })
      await held.reached
      // The log has the entry in hand but not on disk: nothing may have changed yet.
      expect(await readDoc(session, tabId)).toEqual(before)
      expect(await fileText(file)).toBe('original\n')
      held.release()
      const written = ok(await within(10_000, 'document.write', writing))
      expect(written).toMatchObject({ applied: true, durable: true, saved: true })
      const events = await streamEvents(session.quire, docOfTab(session.quire, tabId))
      const journal = events.findIndex((event) => event.type === 'journal.recorded')
      const change = events.findIndex((event) => event.type === 'document.changed')
      expect(journal).toBeGreaterThanOrEqual(0)
      expect(change).toBeGreaterThan(journal)
      expect(events[journal]!.data).toMatchObject({ operation: 'write', text: 'journaled first\n', baseRevision: before.revision })
      expect((events[change]!.data as { journal: number }).journal).toBe(events[journal]!.position)
      expect(events[journal]!.actor).toMatchObject({ kind: 'mcp' })
    } finally {
      await session.close()
    }
  })

  it('JRNL.2 / DOC.WRITE.17 a write that changes nothing (same text, or the same text with CRLF) is not journaled and keeps the revision', async () => {
    const { session, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      ok(await session.call('document', { action: 'write', tabId, content: 'line 1\nline 2\n' }))
      const before = await readDoc(session, tabId)
      const docId = docOfTab(session.quire, tabId)
      const eventsBefore = await streamEvents(session.quire, docId)
      for (const content of ['line 1\nline 2\n', 'line 1\r\nline 2\r\n']) {
        for (const save of [true, false]) {
          const written = ok(await session.call('document', { action: 'write', tabId, content, save }))
          expect(written.revision).toBe(before.revision)
        }
      }
      const eventsAfter = await streamEvents(session.quire, docId)
      expect(count(eventsAfter, 'journal.recorded')).toBe(count(eventsBefore, 'journal.recorded'))
      expect(count(eventsAfter, 'document.changed')).toBe(count(eventsBefore, 'document.changed'))
      expect(await readDoc(session, tabId)).toEqual(before)
    } finally {
      await session.close()
    }
  })

  it('JRNL.10 a log that does not answer in time: document.write answers JOURNAL_UNAVAILABLE (it does not wait forever) and changes nothing, then or later', async () => {
    const { session, stall, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      ok(await session.call('document', { action: 'write', tabId, content: 'before the stall\n' }))
      const before = await readDoc(session, tabId)
      const placed = await inode(file)
      const held = stall.engage()
      const started = Date.now()
      const refused = await within(15_000, 'document.write against a stalled log', session.call('document', { action: 'write', tabId, content: 'must not land\n' }))
      envelope(refused, 'JOURNAL_UNAVAILABLE')
      expect(Date.now() - started).toBeLessThan(15_000)
      expect(await readDoc(session, tabId)).toEqual(before)
      expect(await fileText(file)).toBe('before the stall\n')
      expect(await inode(file)).toBe(placed)
      // Still nothing once the log comes back and the late entry lands.
      held.release()
      await session.quire.services.engine.store.flush()
      expect(await readDoc(session, tabId)).toEqual(before)
      expect(await fileText(file)).toBe('before the stall\n')
      const events = await streamEvents(session.quire, docOfTab(session.quire, tabId))
      expect(events.filter((event) => event.type === 'document.changed' && JSON.stringify(event.data).includes('must not land'))).toEqual([])
      // And the document takes writes again.
      expect(await eventually(async () => !(await session.call('document', { action: 'write', tabId, content: 'after the stall\n' })).isError)).toBe(true)
      expect(await fileText(file)).toBe('after the stall\n')
    } finally {
      await session.close()
    }
  })

  it('JRNL.10 a log whose writes keep failing (EIO): document.write answers JOURNAL_UNAVAILABLE and changes nothing', async () => {
    const { session, stall, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      const before = await readDoc(session, tabId)
      stall.failing = true
      const refused = await within(15_000, 'document.write against a failing log', session.call('document', { action: 'write', tabId, content: 'must not land\n' }))
      envelope(refused, 'JOURNAL_UNAVAILABLE')
      expect(stall.failures).toBeGreaterThan(0)
      expect(await readDoc(session, tabId)).toEqual(before)
      expect(await fileText(file)).toBe('original\n')
      stall.failing = false
      await session.quire.services.engine.store.flush()
      expect(await readDoc(session, tabId)).toEqual(before)
    } finally {
      stall.failing = false
      await session.close()
    }
  })

  it('JRNL.16 / JRNL.17 a slow journal makes workspace.save answer journaled: "pending", never an error; the file is saved and the entry lands later', async () => {
    const { session, stall, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      ok(await session.call('document', { action: 'write', tabId, content: 'saved while the log is slow\n', save: false }))
      const held = stall.engage()
      const saved = ok(await within(15_000, 'workspace.save against a slow log', session.call('workspace', { action: 'save', tabId })))
      expect(saved.journaled).toBe('pending')
      expect(await fileText(file)).toBe('saved while the log is slow\n')
      held.release()
      await session.quire.services.engine.store.flush()
      const events = await streamEvents(session.quire, docOfTab(session.quire, tabId))
      const saves = events.filter((event) => event.type === 'document.saved' && (event.data as { reason: string }).reason === 'save')
      expect(saves).toHaveLength(1)
      expect(saves[0]!.actor.kind).toBe('mcp')
    } finally {
      await session.close()
    }
  })

  it('JRNL.16 / JRNL.17 / DOC.WRITE.11 a journal that turns slow during document.write\'s save answers saved: true, journaled: "pending", not an error', async () => {
    const { session, stall, fs, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      let held: ReturnType<LogStall['engage']> | undefined
      fs.onNextJob(() => {
        held = stall.engage()
      })
      const written = ok(await within(15_000, 'document.write with a slow journal at save', session.call('document', { action: 'write', tabId, content: 'written, then saved slowly\n' })))
      expect(written).toMatchObject({ applied: true, durable: true, saved: true, journaled: 'pending' })
      expect(await fileText(file)).toBe('written, then saved slowly\n')
      held?.release()
    } finally {
      await session.close()
    }
  })

  it('JRNL.16 / JRNL.17 a slow journal makes save_as answer journaled: "pending", never an error; the new file is written', async () => {
    const { session, stall, file, ws } = await fresh({ autoApproveSaves: true })
    try {
      const tabId = await openTab(session, file)
      ok(await session.call('document', { action: 'write', tabId, content: 'save_as while the log is slow\n', save: false }))
      const held = stall.engage()
      const target = join(ws, 'copy.md')
      const saved = ok(await within(15_000, 'save_as against a slow log', session.call('workspace', { action: 'save_as', tabId, filePath: target })))
      expect(saved.journaled).toBe('pending')
      expect(await fileText(target)).toBe('save_as while the log is slow\n')
      held.release()
    } finally {
      await session.close()
    }
  })
})

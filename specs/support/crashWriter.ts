import type { EventStore } from '../../adapters/leveldb/eventStore.js'
/**
 * Child process for specs/crash/kill.test.ts: opens the data directory given as argv[2] and appends as fast as it
 * can until it is killed. Config (JSON, argv[3]): `{ rawLoops, docLoops, docs }`, where `docs[k]` is the id of the
 * document loop k created in an earlier life, if the parent saw it.
 *
 * Every line on stdout is one JSON object, written only after what it reports is durable:
 *   {kind:'ready', pid, heads: {stream: version}, docs: {docId: revision}}   after opening, before any append
 *   {kind:'append', stream, versions, positions, hashes}                      a raw appendToStream resolved
 *   {kind:'created', loop, docId, revision, hash}                             documents.create resolved
 *   {kind:'doc', loop, docId, revision, hash, op, live}                       a write / peer update is durable
 * `hash` is the sha256 of the payload (raw appends) or of the document's content at `revision` (documents).
 * Anything unexpected is reported as {kind:'error', message} on stdout and the process exits 1.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto'
import * as Y from 'yjs'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import type { Actor } from '../../core/events/actor.js'

interface Config {
  readonly rawLoops: number
  readonly docLoops: number
  readonly docs: Record<string, string>
}

const home = process.argv[2]
if (!home) throw new Error('usage: crashWriter HOME [CONFIG_JSON]')
const config: Config = { rawLoops: 32, docLoops: 3, docs: {}, ...(JSON.parse(process.argv[3] ?? '{}') as Partial<Config>) }

const RAW_ACTOR: Actor = { kind: 'peer', peer: 'crash' }
const WRITER: Actor = { kind: 'mcp', principal: 'crash', connection: 'c-1' }
const PEER: Actor = { kind: 'peer', peer: 'crash-peer' }

const sha = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex')
// Pipes are synchronous on Linux: once write() returns, the line is in the pipe and survives SIGKILL.
const say = (message: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(message)}\n`)

function fail(error: unknown): never {
  say({ kind: 'error', message: (error as Error).stack ?? String(error) })
  process.exit(1)
}

// BMP only, so that Y.Text indices (UTF-16 units) never split a surrogate pair.
const ALPHABET = [...'abcdefghijklmnopqrstuvwxyz     \n\néüß漢字—']
const randomText = (max: number): string =>
  Array.from({ length: randomInt(0, max + 1) }, () => ALPHABET[randomInt(ALPHABET.length)]!).join('')

const rawStream = (index: number): string => `doc:crash-${index}`

/**
 * 20–200 bytes, random but for the first two: 0x00 0x00 is an empty Yjs update (no structs, empty delete set), and
 * Yjs ignores the random bytes after it. `doc:` streams are documents to `verify` and `replay`, which apply every
 * `document.changed` update to a Y.Doc; Yjs spends up to ~100 ms decoding a fully random update (a leading varint
 * >= 0x80 makes it allocate huge arrays), which would make verifying tens of thousands of them take minutes.
 */
function randomPayload(): Uint8Array {
  const payload = new Uint8Array(randomBytes(randomInt(20, 201)))
  payload[0] = 0
  payload[1] = 0
  return payload
}

try {
  const engine = await openEmbeddedEngine(home)

  const heads: Record<string, number> = {}
  for (let i = 0; i < config.rawLoops; i++) heads[rawStream(i)] = (await engine.store.streamHead(rawStream(i))).version
  const docs: Record<string, string> = {}
  for (const docId of Object.values(config.docs)) {
    const state = await engine.documents.get(docId)
    if (state) docs[docId] = state.revision
  }
  say({ kind: 'ready', pid: process.pid, heads, docs })

  async function rawLoop(index: number): Promise<never> {
    const stream = rawStream(index)
    // Continue from the head on disk: whatever the previous life appended (acknowledged or not) is kept.
    let version = (await engine.store.streamHead(stream)).version
    for (;;) {
      const payloads = Array.from({ length: randomInt(1, 6) }, randomPayload)
      const result = await (engine.store as EventStore).appendToStream(
        stream,
        payloads.map((update) => ({ type: 'document.changed', data: { update }, actor: RAW_ACTOR })),
        { expectedStreamVersion: version },
      )
      version = result.nextExpectedStreamVersion
      say({
        kind: 'append',
        stream,
        versions: result.events.map((event) => event.streamVersion),
        positions: result.events.map((event) => event.position),
        hashes: payloads.map(sha),
      })
    }
  }

  async function docLoop(loop: number): Promise<never> {
    let docId = config.docs[loop]
    if (docId === undefined || docs[docId] === undefined) {
      const content = randomText(200)
      const created = await engine.commands.documents.create({
        kind: 'markdown', content, path: null, title: `crash-${loop}`, origin: 'untitled', actor: WRITER,
      })
      docId = created.docId
      say({ kind: 'created', loop, docId, revision: created.revision, hash: sha(content) })
    }
    const peer = new Y.Doc()
    const text = peer.getText('source')
    for (;;) {
      // An AI-style write: journaled, then applied as a diff.
      const content = randomText(400)
      const written = await engine.commands.documents.write({ docId, content, actor: WRITER })
      const afterWrite = (await engine.documents.get(docId))!.content
      say({ kind: 'doc', loop, docId, op: 'write', revision: written.revision, hash: sha(content), live: afterWrite === content })

      // A Yjs peer: catch up with the document, edit locally, send the updates.
      const state = (await engine.documents.get(docId))!
      Y.applyUpdate(peer, Y.encodeStateAsUpdate(state.ydoc, Y.encodeStateVector(peer)))
      const updates: Uint8Array[] = []
      const collect = (update: Uint8Array): void => void updates.push(update)
      peer.on('update', collect)
      for (let edit = randomInt(1, 6); edit > 0; edit--) {
        if (text.length > 0 && randomInt(3) === 0) {
          const at = randomInt(text.length)
          text.delete(at, Math.min(randomInt(1, 20), text.length - at))
        } else {
          text.insert(randomInt(text.length + 1), randomText(30) || 'x')
        }
      }
      peer.off('update', collect)
      const outcome = await engine.commands.documents.applyPeerUpdates(docId, updates, PEER)
      await outcome.durable
      const expected = text.toString()
      const live = (await engine.documents.get(docId))!.content
      say({ kind: 'doc', loop, docId, op: 'peer', revision: outcome.revision, hash: sha(expected), live: live === expected })
    }
  }

  const loops: Promise<never>[] = []
  for (let i = 0; i < config.rawLoops; i++) loops.push(rawLoop(i))
  for (let k = 0; k < config.docLoops; k++) loops.push(docLoop(k))
  await Promise.all(loops)
} catch (error) {
  fail(error)
}

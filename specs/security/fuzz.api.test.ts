/**
 * Random requests at the person's two HTTP APIs (issue 11): every route under `/admin/*` and `/console/api/*`
 * (adapters/http/adminRoute.ts, adminComments.ts, console.ts and console*.ts), with random methods, paths near the
 * real ones (parameters empty, huge, unicode, `..%2f`, ids that exist and that do not), random bodies (JSON of the
 * right and the wrong shape, text that is not JSON, binary, up to a few MiB, sized or chunked), random content types,
 * and random credentials (the person's token, a wrong one, an agent's, none, the console cookie from the console's
 * origin, from a foreign one, or with no Origin). Invariants:
 *
 * - the daemon stays up: every answer is below 500, and `/admin/status` answers before and after each request;
 * - every answer is JSON: a refusal (4xx) carries an `error` field, a success (2xx) is an object without one;
 * - a refusal changes nothing: the log's head (as `/admin/status` reports it) has not moved, and every file under
 *   the fuzz's folder (the open workspace and a folder beside it) has the same bytes. Only a 2xx may move them.
 *
 * The paths the bodies name are all under that temp folder, so no random success can touch anything else.
 * Seeded through specs/support/fuzz.ts (fixed seed unless QUIRE_FUZZ=1); run counts are bounded.
 */
import { request } from 'node:http'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { adminRoutes } from '../../adapters/http/adminRoute.js'
import { consoleRoutes } from '../../adapters/http/console.js'
import { ConsoleSessions } from '../../adapters/http/consoleSessions.js'
import { settingEntries } from '../../core/settings/events.js'
import { fuzzParameters } from '../support/fuzz.js'
import { tempDir } from '../support/mcpHarness.js'
import { startSecurityServer, within, type SecurityServer } from './sessionsRig.js'

/** Values that name something that exists now, resolved when the request is sent (earlier runs change the set). */
type Ref = 'docId' | 'tabId' | 'commentId' | 'approvalId' | 'agentName' | 'mcpSession' | 'revision' | 'settingKey' | 'wsFile' | 'wsNewFile' | 'wsDir' | 'wsRoot' | 'delegation' | 'outsideFile' | 'traversal'
type Value = { readonly ref: Ref } | { readonly literal: unknown }
/** A path parameter may also be the thing its own name calls for (`:tabId`: a tab that exists). */
type Parameter = Value | { readonly own: true }

interface Route {
  readonly method: string
  /** Segments; `:name` is a parameter the fuzz fills. */
  readonly path: string
  /** The fields of the route's body, so "shaped" bodies sometimes pass its schema. */
  readonly fields?: readonly string[]
  /** Query parameters the route reads. */
  readonly query?: readonly string[]
}

/** Every route of both APIs. */
const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/admin/approvals' },
  { method: 'POST', path: '/admin/approvals/:approvalId/approve' },
  { method: 'POST', path: '/admin/approvals/:approvalId/deny' },
  { method: 'GET', path: '/admin/settings' },
  { method: 'POST', path: '/admin/settings', fields: ['key', 'value'] },
  { method: 'POST', path: '/admin/agents', fields: ['name'] },
  { method: 'GET', path: '/admin/agents' },
  { method: 'POST', path: '/admin/agents/:agentName/revoke' },
  { method: 'POST', path: '/admin/agents/:agentName/end-session', fields: ['session'] },
  { method: 'POST', path: '/admin/review', fields: ['doc', 'cwd'] },
  { method: 'GET', path: '/admin/review', query: ['doc', 'cwd', 'all'] },
  { method: 'POST', path: '/admin/review/keep', fields: ['doc', 'change', 'hunks', 'cwd'] },
  { method: 'POST', path: '/admin/review/redo', fields: ['doc', 'change', 'hunks', 'cwd'] },
  { method: 'POST', path: '/admin/review/undo', fields: ['doc', 'change', 'hunks', 'agent', 'since', 'cwd'] },
  { method: 'POST', path: '/admin/workspaces', fields: ['path'] },
  { method: 'GET', path: '/admin/history', query: ['doc', 'cwd'] },
  { method: 'POST', path: '/admin/divergence', fields: ['doc', 'choice', 'cwd'] },
  { method: 'GET', path: '/admin/log', query: ['after', 'since', 'until', 'limit', 'stream', 'actor', 'type', 'doc', 'cwd', 'full'] },
  { method: 'POST', path: '/admin/rebuild', fields: ['names'] },
  { method: 'GET', path: '/admin/blame', query: ['doc', 'cwd', 'at'] },
  { method: 'GET', path: '/admin/replay', query: ['doc', 'at', 'cwd'] },
  { method: 'GET', path: '/admin/comments', query: ['doc', 'cwd'] },
  { method: 'POST', path: '/admin/comments', fields: ['doc', 'from', 'to', 'body', 'cwd'] },
  { method: 'POST', path: '/admin/comments/:commentId/replies', fields: ['doc', 'body', 'cwd'] },
  { method: 'POST', path: '/admin/comments/:commentId/resolve', fields: ['doc', 'cwd'] },
  { method: 'POST', path: '/admin/comments/:commentId/reopen', fields: ['doc', 'cwd'] },
  { method: 'POST', path: '/admin/comments/:commentId/delete', fields: ['doc', 'cwd'] },
  { method: 'GET', path: '/admin/browser/profiles' },
  { method: 'POST', path: '/admin/browser/profiles/share', fields: ['profile', 'owner', 'with'] },
  { method: 'POST', path: '/admin/browser/profiles/unshare', fields: ['profile', 'owner', 'with'] },
  { method: 'GET', path: '/admin/verify' },
  { method: 'GET', path: '/admin/status' },
  { method: 'POST', path: '/admin/console-link' },
  { method: 'GET', path: '/admin/coherence/status', query: ['root'] },
  { method: 'GET', path: '/admin/coherence/edges', query: ['root'] },
  { method: 'GET', path: '/admin/coherence/grants', query: ['root'] },
  { method: 'POST', path: '/admin/coherence/grants', fields: ['root', 'delegate', 'scope', 'days'] },
  { method: 'POST', path: '/admin/coherence/grants/:delegation/revoke', fields: ['root'] },
  { method: 'GET', path: '/console/api/state' },
  { method: 'POST', path: '/console/api/tabs/:tabId/activate' },
  { method: 'GET', path: '/console/api/panels/approvals' },
  { method: 'POST', path: '/console/api/panels/approvals/:approvalId/approve' },
  { method: 'POST', path: '/console/api/panels/approvals/:approvalId/deny' },
  { method: 'GET', path: '/console/api/panels/settings' },
  { method: 'POST', path: '/console/api/panels/settings', fields: ['key', 'value'] },
  { method: 'GET', path: '/console/api/panels/divergences' },
  { method: 'POST', path: '/console/api/panels/divergences/:docId/keep' },
  { method: 'POST', path: '/console/api/panels/divergences/:docId/reload' },
  { method: 'GET', path: '/console/api/panels/agents' },
  { method: 'POST', path: '/console/api/panels/agents', fields: ['name'] },
  { method: 'POST', path: '/console/api/panels/agents/:agentName/revoke' },
  { method: 'POST', path: '/console/api/panels/agents/:agentName/sessions/:mcpSession/end' },
  { method: 'GET', path: '/console/api/docs/:docId/history' },
  { method: 'GET', path: '/console/api/docs/:docId/diff', query: ['from', 'to'] },
  { method: 'POST', path: '/console/api/docs/:docId/restore', fields: ['revision', 'expectedRevision'] },
  { method: 'POST', path: '/console/api/docs/:docId/review', fields: ['upToRevision'] },
  { method: 'GET', path: '/console/api/docs/:docId/comments' },
  { method: 'POST', path: '/console/api/docs/:docId/comments', fields: ['from', 'to', 'body'] },
  { method: 'POST', path: '/console/api/docs/:docId/comments/:commentId/replies', fields: ['body'] },
  { method: 'POST', path: '/console/api/docs/:docId/comments/:commentId/resolve' },
  { method: 'POST', path: '/console/api/docs/:docId/comments/:commentId/reopen' },
  { method: 'POST', path: '/console/api/docs/:docId/comments/:commentId/delete' },
  { method: 'GET', path: '/console/api/docs/:docId/restore-preview', query: ['revision'] },
  { method: 'GET', path: '/console/api/docs/:docId/changes', query: ['all'] },
  { method: 'POST', path: '/console/api/docs/:docId/changes/keep', fields: ['change', 'hunks'] },
  { method: 'POST', path: '/console/api/docs/:docId/changes/undo', fields: ['change', 'hunks'] },
  { method: 'POST', path: '/console/api/docs/:docId/changes/redo', fields: ['change', 'hunks'] },
  { method: 'POST', path: '/console/api/docs/:docId/changes/keep-all', fields: ['upToRevision'] },
  { method: 'POST', path: '/console/api/docs/:docId/changes/undo-by', fields: ['agent', 'connection', 'since'] },
  { method: 'GET', path: '/console/api/review' },
  { method: 'GET', path: '/console/api/browser/tabs' },
  { method: 'POST', path: '/console/api/browser/tabs', fields: ['url'] },
  { method: 'POST', path: '/console/api/browser/tabs/:tabId/navigate', fields: ['url'] },
  { method: 'POST', path: '/console/api/browser/tabs/:tabId/close' },
  { method: 'POST', path: '/console/api/browser/tabs/:tabId/input', fields: ['input'] },
  { method: 'GET', path: '/console/api/browser/tabs/:tabId/locate', query: ['role', 'name'] },
  { method: 'GET', path: '/console/api/browser/tabs/:tabId/frames' },
  { method: 'GET', path: '/console/api/browser/runs' },
  { method: 'POST', path: '/console/api/browser/runs/:runId/cancel' },
  { method: 'GET', path: '/console/api/browser/saved' },
  { method: 'POST', path: '/console/api/browser/sessions/:name/delete' },
  { method: 'POST', path: '/console/api/browser/profiles/:name/delete' },
  { method: 'GET', path: '/console/api/browser/recordings' },
  { method: 'POST', path: '/console/api/browser/tabs/:tabId/recording/stop' },
  { method: 'GET', path: '/console/api/files/roots' },
  { method: 'GET', path: '/console/api/files/list', query: ['path'] },
  { method: 'POST', path: '/console/api/files/open', fields: ['path', 'window'] },
  { method: 'POST', path: '/console/api/files/create', fields: ['path', 'type', 'window'] },
  { method: 'POST', path: '/console/api/files/rename', fields: ['from', 'to'] },
  { method: 'POST', path: '/console/api/tabs/new', fields: ['kind', 'window'] },
  { method: 'POST', path: '/console/api/tabs/:tabId/save', fields: ['stateVector'] },
  { method: 'POST', path: '/console/api/tabs/:tabId/save-as', fields: ['path', 'stateVector'] },
  { method: 'POST', path: '/console/api/tabs/:tabId/close', fields: ['force'] },
  { method: 'GET', path: '/console/api/presence' },
  { method: 'GET', path: '/console/api/coherence/workspaces' },
  { method: 'GET', path: '/console/api/coherence/breakdown', query: ['root'] },
  { method: 'POST', path: '/console/api/coherence/resolve', fields: ['root', 'txf', 'input', 'resolution', 'reason'] },
  { method: 'GET', path: '/console/api/coherence/grants', query: ['root'] },
  { method: 'POST', path: '/console/api/coherence/grants', fields: ['root', 'delegate', 'scope', 'days'] },
  { method: 'POST', path: '/console/api/coherence/grants/:delegation/revoke', fields: ['root'] },
]

const refs = (...names: Ref[]): fc.Arbitrary<Value> => fc.constantFrom(...names.map((ref) => ({ ref })))
const literal = (arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<Value> => arbitrary.map((value) => ({ literal: value }))

/** A path parameter: an id that exists, one that does not, empty, huge, unicode, traversal. */
const parameter: fc.Arbitrary<Parameter> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ own: true as const }) },
  { weight: 2, arbitrary: refs('docId', 'tabId', 'commentId', 'approvalId', 'agentName', 'revision', 'delegation') },
  {
    weight: 3,
    arbitrary: literal(
      fc.constantFrom('', 'x', '..', '.', '..%2f..%2fadmin%2fstatus', '%2e%2e%2f%2e%2e', '..%5c..%5c', '%00', '%ff%fe', 'doc-00000000000000000000', 'tab-0', 'ap-0', 'cm-0', 'rev-0', 'rev-99999999', 'fuzzer', 'approve'),
    ),
  },
  { weight: 2, arbitrary: literal(fc.string({ unit: 'grapheme', maxLength: 24 }).map(encodeURIComponent)) },
  // Huge, yet under Node's 16 KiB header limit (past it Node answers 431 itself, before any route).
  { weight: 1, arbitrary: literal(fc.integer({ min: 1_000, max: 8_000 }).map((length) => 'x'.repeat(length))) },
)

/** A field value: often something real (so routes get past their schemas and refuse, or act, further in), often not. */
const fieldValue: fc.Arbitrary<Value> = fc.oneof(
  { weight: 4, arbitrary: refs('docId', 'tabId', 'commentId', 'approvalId', 'agentName', 'revision', 'settingKey', 'wsFile', 'wsNewFile', 'wsDir', 'outsideFile', 'traversal') },
  {
    weight: 3,
    arbitrary: literal(
      fc.constantFrom('', 'a.md', '../a.md', '\u0000', 'ü', 'keep', 'reload', 'file', 'directory', 'markdown', 'yaml-workflow', 'main', 'AA==', '!!', true, false, 0, -1, 1.5, 2 ** 53, null, [], {}),
    ),
  },
  { weight: 2, arbitrary: literal(fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.double(), fc.json({ maxDepth: 2 }).map((text) => JSON.parse(text) as unknown))) },
  { weight: 1, arbitrary: literal(fc.integer({ min: 10_000, max: 200_000 }).map((length) => 'y'.repeat(length))) },
)

type Body =
  | { readonly kind: 'none' }
  | { readonly kind: 'shaped'; readonly values: readonly Value[]; readonly extra: boolean }
  | { readonly kind: 'plausible'; readonly picks: readonly number[] }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly bytes: Uint8Array }
  | { readonly kind: 'huge'; readonly size: number }

/** For each body field, values a real client would send (so some requests act, and the ones that refuse do so late). */
const r = (ref: Ref): Value => ({ ref })
const l = (value: unknown): Value => ({ literal: value })
const PLAUSIBLE: Readonly<Record<string, readonly Value[]>> = {
  doc: [r('docId'), r('wsFile')],
  cwd: [r('wsDir'), l('/')],
  from: [l(0), r('wsNewFile'), r('wsFile')],
  to: [l(3), r('wsNewFile'), r('traversal')],
  body: [l('a fuzzed remark')],
  key: [r('settingKey'), l('workspaceRail'), l('reviewBacklogLimit')],
  value: [l(true), l(false), l(5)],
  name: [l('fuzzer'), l('fuzzer-two'), l('')],
  path: [r('wsFile'), r('wsNewFile'), r('wsDir'), r('outsideFile'), r('traversal')],
  type: [l('file'), l('directory')],
  window: [l('main'), l('second')],
  revision: [r('revision'), l('rev-0')],
  expectedRevision: [r('revision')],
  upToRevision: [r('revision')],
  kind: [l('markdown'), l('yaml-workflow')],
  stateVector: [l('AA=='), l('')],
  force: [l(false), l(true)],
  choice: [l('keep'), l('reload')],
  // A page that cannot load (the discard port refuses), one the engine refuses, and not a URL at all.
  url: [l('http://127.0.0.1:9/'), l('file:///etc/passwd'), l('not a url')],
  root: [r('wsRoot'), r('wsDir'), r('outsideFile'), l('relative/ws')],
  txf: [l('01900000-0000-7000-8000-000000000000'), l('not-an-id')],
  resolution: [l('accept-newer'), l('waive'), l('ignore')],
  reason: [l('a fuzzed reason'), l('')],
  delegate: [r('agentName'), l('someone')],
  scope: [l(['accept-newer']), l(['waive', 'accept-newer']), l([]), l(['forever'])],
  days: [l(1), l(7), l(30), l(365)],
  delegation: [r('delegation')],
  session: [r('mcpSession'), l('mcp-00000000')],
  change: [l('ch-1'), l('ch-zzzz'), l('not-a-change')],
  hunks: [l([0]), l([1, 0]), l([-1])],
  agent: [r('agentName'), l('claude')],
  connection: [l('c-1')],
  profile: [l('work'), l('')],
  owner: [r('agentName'), l('nobody')],
  with: [r('agentName'), l('someone')],
  since: [r('revision'), l(0)],
  names: [l(['audit']), l(['history', 'audit']), l(['nothing']), l([])],
  input: [l(0), l(-1), l({ kind: 'mouse', action: 'down', x: 10, y: 10 }), l({ kind: 'text', text: 'typed' }), l({ kind: 'key', action: 'down', key: 'Enter', code: 'Enter' })],
}

const MiB = 1024 * 1024
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('plausible' as const), picks: fc.array(fc.nat(), { minLength: 5, maxLength: 5 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('shaped' as const), values: fc.array(fieldValue, { minLength: 5, maxLength: 5 }), extra: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.constantFrom('{', '{"key":', 'null', '[]', '"x"', 'NaN', '{"key":"autoApproveSaves","value":tru}', '\u0000\u0001'),
      fc.string({ maxLength: 80 }),
    ).map((text) => ({ kind: 'text' as const, text })),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((bytes) => ({ kind: 'binary' as const, bytes })) },
  { weight: 1, arbitrary: fc.constantFrom(64 * 1024, MiB - 64, MiB + 1, 3 * MiB).map((size) => ({ kind: 'huge' as const, size })) },
)

type Credential = 'person' | 'wrong' | 'agent' | 'none' | 'cookie' | 'cookie-foreign-origin' | 'cookie-no-origin' | 'wrong-cookie'

/** Credentials that are not the person's on any route (the cookie without an Origin still reads: GETs pass). */
const UNAUTHORIZED = new Set<Credential>(['wrong', 'agent', 'none', 'cookie-foreign-origin', 'wrong-cookie'])

const fuzzRequest = fc.record({
  route: fc.constantFrom(...ROUTES),
  // The route's own method most of the time, any other sometimes.
  method: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') }),
  parameters: fc.array(parameter, { minLength: 2, maxLength: 2 }),
  query: fc.array(fc.option(fieldValue, { nil: undefined }), { minLength: 3, maxLength: 3 }),
  mutation: fc.constantFrom(...Array<'none'>(24).fill('none'), 'trailing-slash', 'double-slash', 'upper', 'extra-segment', 'encoded-traversal', 'dot-segment'),
  body,
  chunked: fc.boolean(),
  contentType: fc.constantFrom(undefined, 'application/json', 'application/json', 'text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1'),
  credential: fc.oneof(
    { weight: 6, arbitrary: fc.constant<Credential>('person') },
    { weight: 3, arbitrary: fc.constant<Credential>('cookie') },
    { weight: 3, arbitrary: fc.constantFrom<Credential>('wrong', 'agent', 'none', 'cookie-foreign-origin', 'cookie-no-origin', 'wrong-cookie') },
  ),
})
type FuzzRequest = typeof fuzzRequest extends fc.Arbitrary<infer T> ? T : never

interface Answer {
  readonly status: number
  readonly text: string
}

/** Every file under `root` with its bytes (directories by their listing), to compare before and after a request. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) {
        files.set(`${path}/`, 'directory')
        await walk(path)
      } else files.set(path, (await readFile(path)).toString('base64'))
    }
  }
  await walk(root)
  return files
}

describe('person API fuzz (/admin, /console/api)', () => {
  let server: SecurityServer
  let root: string
  let workspace: string
  let agentToken: string
  let cookie: string
  let commentId: string
  let delegation: string

  /** Raw HTTP, so paths reach the daemon exactly as written (fetch would normalise `..` and reject some bytes). */
  function send(method: string, path: string, headers: Record<string, string>, payload: Buffer | undefined, chunked: boolean): Promise<Answer> {
    return within(30_000, `${method} ${path.slice(0, 80)}`, new Promise<Answer>((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port: server.port, agent: false, method, path, headers: { ...headers, ...(payload ? (chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(payload.length) }) : {}) } }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
        response.on('error', reject)
      })
      // The daemon may answer (413) and close before a big body is all sent: the answer, not the write, counts.
      outgoing.on('error', reject)
      if (payload && chunked) {
        const half = Math.floor(payload.length / 2)
        outgoing.write(payload.subarray(0, half))
        outgoing.end(payload.subarray(half))
      } else outgoing.end(payload)
    }))
  }

  const person = { authorization: '' }
  async function status(): Promise<{ head: number }> {
    const answer = await send('GET', '/admin/status', person, undefined, false)
    expect(answer.status, answer.text).toBe(200)
    return JSON.parse(answer.text) as { head: number }
  }

  function resolveRef(ref: Ref): string {
    const { views } = server.quire.services.engine
    const first = <T>(values: Iterable<T>): T | undefined => values[Symbol.iterator]().next().value
    const tab = first(views.workspace.state.tabs.values())
    switch (ref) {
      case 'docId': return tab?.docId ?? 'doc-gone'
      case 'tabId': return tab?.tabId ?? 'tab-gone'
      case 'commentId': return commentId
      case 'approvalId': return server.quire.services.approvals.list()[0]?.approvalId ?? 'ap-gone'
      case 'agentName': return 'fuzzer'
      case 'mcpSession': return server.http.sessions.listFor('fuzzer')[0]?.session ?? 'mcp-gone'
      case 'revision': return `rev-${Math.max(0, server.quire.services.engine.store.headPosition - 1)}`
      case 'settingKey': return settingEntries(server.quire.services.settings.state)[0]![0]
      case 'wsFile': return join(workspace, 'a.md')
      case 'wsNewFile': return join(workspace, 'new.md')
      case 'wsDir': return join(workspace, 'sub')
      case 'wsRoot': return workspace
      case 'delegation': return delegation
      case 'outsideFile': return join(root, 'outside', 'o.md')
      case 'traversal': return `${workspace}/../outside/t.md`
    }
  }
  const valueOf = (value: Value): unknown => ('ref' in value ? resolveRef(value.ref) : value.literal)
  const asSegment = (value: Parameter, name: string): string =>
    'own' in value ? encodeURIComponent(resolveRef(name as Ref)) : 'ref' in value ? encodeURIComponent(resolveRef(value.ref)) : String(value.literal)

  function build(each: FuzzRequest): { method: string; path: string; headers: Record<string, string>; payload: Buffer | undefined } {
    let parameterIndex = 0
    let path = each.route.path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? asSegment(each.parameters[parameterIndex++]!, segment.slice(1)) : segment))
      .join('/')
    const query = (each.route.query ?? [])
      .map((name, index) => [name, each.query[index]] as const)
      .filter((pair): pair is readonly [string, Value] => pair[1] !== undefined)
      // Cut to stay under Node's 16 KiB header limit, past which Node itself answers 431 before any route runs.
      .map(([name, value]) => `${name}=${encodeURIComponent(String(valueOf(value)).slice(0, 2_000))}`)
    switch (each.mutation) {
      case 'trailing-slash': path += '/'; break
      case 'double-slash': path = path.replace('/', '//'); break
      case 'upper': path = path.toUpperCase(); break
      case 'extra-segment': path += '/extra'; break
      case 'encoded-traversal': path = path.replace(/\/[^/]*$/, '/..%2fstatus'); break
      case 'dot-segment': path = path.replace(/^\/(admin|console\/api)\//, '/$1/../'); break
    }
    if (query.length > 0) path += `?${query.join('&')}`

    const headers: Record<string, string> = {}
    const origin = `http://127.0.0.1:${server.port}`
    switch (each.credential) {
      case 'person': headers.authorization = `Bearer ${server.token}`; break
      case 'wrong': headers.authorization = 'Bearer qa_not-the-token'; break
      case 'agent': headers.authorization = `Bearer ${agentToken}`; break
      case 'none': break
      case 'cookie': headers.cookie = cookie; headers.origin = origin; break
      case 'cookie-foreign-origin': headers.cookie = cookie; headers.origin = 'http://evil.example'; break
      case 'cookie-no-origin': headers.cookie = cookie; break
      case 'wrong-cookie': headers.cookie = `quire_session_${server.port}=forged`; headers.origin = origin; break
    }
    if (each.contentType) headers['content-type'] = each.contentType

    let payload: Buffer | undefined
    const shaped = each.body
    if (shaped.kind === 'shaped') {
      const fields = each.route.fields ?? ['key']
      const object: Record<string, unknown> = Object.fromEntries(fields.map((field, index) => [field, valueOf(shaped.values[index % shaped.values.length]!)]))
      if (shaped.extra) object.unexpected = true
      payload = Buffer.from(JSON.stringify(object))
    } else if (shaped.kind === 'plausible') {
      const fields = each.route.fields ?? []
      payload = Buffer.from(JSON.stringify(Object.fromEntries(fields.map((field, index) => {
        const choices = PLAUSIBLE[field]!
        return [field, valueOf(choices[shaped.picks[index % shaped.picks.length]! % choices.length]!)]
      }))))
    } else if (shaped.kind === 'text') payload = Buffer.from(shaped.text)
    else if (shaped.kind === 'binary') payload = Buffer.from(shaped.bytes)
    else if (shaped.kind === 'huge') payload = Buffer.from(`{"key":"${'z'.repeat(shaped.size)}"}`)
    return { method: each.method ?? each.route.method, path, headers, payload }
  }

  beforeAll(async () => {
    root = await tempDir('quire-fuzz-api-')
    workspace = join(root, 'ws')
    await mkdir(join(workspace, 'sub'), { recursive: true })
    await mkdir(join(root, 'outside'))
    await writeFile(join(workspace, 'a.md'), '# alpha\n\nfirst file\n')
    await writeFile(join(workspace, 'b.md'), 'beta\n')
    await writeFile(join(workspace, 'sub', 'c.md'), 'gamma\n')
    await writeFile(join(workspace, 'ünï cødé.md'), 'delta\n')
    await writeFile(join(root, 'outside', 'o.md'), 'outside\n')

    server = await startSecurityServer()
    person.authorization = `Bearer ${server.token}`
    const json = (payload: unknown) => Buffer.from(JSON.stringify(payload))
    const type = { ...person, 'content-type': 'application/json' }
    expect((await send('POST', '/admin/workspaces', type, json({ path: workspace }), false)).status).toBe(200)
    const opened = await send('POST', '/console/api/files/open', type, json({ path: join(workspace, 'a.md') }), false)
    expect(opened.status, opened.text).toBe(200)
    const tabId = (JSON.parse(opened.text) as { tabId: string }).tabId
    const docId = server.quire.services.engine.views.workspace.state.tabs.get(tabId)!.docId
    const created = await send('POST', '/admin/comments', type, json({ doc: docId, from: 2, to: 7, body: 'a thread to aim at' }), false)
    expect(created.status, created.text).toBe(200)
    commentId = (JSON.parse(created.text) as { comment: string }).comment
    agentToken = await server.quire.services.agents.add('fuzzer', USER)
    // A delegation, so revoke routes meet a real grant id (this also makes the workspace's `.vmark/` ledger).
    delegation = (await server.quire.services.coherence.grant(workspace, { delegate: 'fuzzer', scope: ['resolve.waive'], expires: new Date(Date.now() + 86_400_000) }, 'the person', USER)).delegation
    // A request waiting for the person, so approval routes meet a real id.
    await server.quire.services.approvals.gate('open_workspace', join(root, 'outside'), 'mcp-fuzz', 'fuzzer', { kind: 'mcp', principal: 'fuzzer', connection: 'mcp-fuzz' })
    // The console's cookie, as a second browser gets it: `/?token=…` exchanges the token for a session.
    const signedIn = await fetch(`http://127.0.0.1:${server.port}/?token=${server.token}`, { redirect: 'manual' })
    cookie = signedIn.headers.getSetCookie().find((each) => each.startsWith(`quire_session_${server.port}=`))!.split(';')[0]!
  })
  afterAll(async () => {
    await server?.close()
    if (root) await rm(root, { recursive: true, force: true })
  })

  /** Sends one request and checks every invariant; returns the answer for the regression cases. */
  async function check(each: FuzzRequest): Promise<Answer> {
    const { method, path, headers, payload } = build(each)
    const before = await status()
    const files = await snapshot(root)
    const answer = await send(method, path, headers, payload, each.chunked)
    const what = `${method} ${path.slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 300)}`
    expect(answer.status, what).toBeLessThan(500)
    expect(answer.status, what).toBeGreaterThanOrEqual(200)
    let parsed: unknown
    expect(() => (parsed = JSON.parse(answer.text)), what).not.toThrow()
    expect(typeof parsed === 'object' && parsed !== null, what).toBe(true)
    const after = await status()
    // No credential but the person's opens either API, whatever the path looks like.
    if (UNAUTHORIZED.has(each.credential)) expect(answer.status, what).toBeGreaterThanOrEqual(400)
    if (answer.status >= 300) {
      expect(typeof (parsed as { error?: unknown }).error, what).toBe('string')
      expect(after.head, what).toBe(before.head)
      expect(await snapshot(root), what).toEqual(files)
    } else {
      expect((parsed as { error?: unknown }).error, what).toBeUndefined()
    }
    return answer
  }

  it('the fuzz knows every route the two APIs serve (a new route must be added to ROUTES)', () => {
    const services = server.quire.services
    const served = [
      ...adminRoutes(services).routes.map((route) => ({ method: route.method, path: `/admin${route.path === '/' ? '' : route.path}` })),
      ...consoleRoutes(services, server.token, new ConsoleSessions(server.token), server.http.sessions).routes.filter((route) => route.path.startsWith('/console/api/')),
    ].filter((route) => route.method !== 'ALL')
    // `:name{a|b}` serves a and b; `:name` any one segment.
    const pattern = (path: string) => new RegExp(`^${path.replace(/:\w+\{([^}]*)\}/g, '($1)').replace(/:\w+/g, ':[^/]+')}$`)
    for (const route of served) {
      const known = ROUTES.some((each) => each.method === route.method && pattern(route.path).test(each.path.replace(/:\w+/g, ':p')))
      expect(known, `${route.method} ${route.path} is not in ROUTES`).toBe(true)
    }
    for (const each of ROUTES) {
      expect(served.some((route) => route.method === each.method && pattern(route.path).test(each.path.replace(/:\w+/g, ':p'))), `${each.method} ${each.path}`).toBe(true)
    }
  })

  // Found by this fuzz: an unknown route or method was Hono's text `404 Not Found`, not JSON (daemon.ts's notFound).
  it('regression: a method a route does not have is a JSON 404 with an error, and changes nothing', async () => {
    const answer = await check({
      route: { method: 'GET', path: '/admin/approvals' }, method: 'DELETE', parameters: [{ literal: '' }, { literal: '' }], query: [undefined, undefined, undefined],
      mutation: 'none', body: { kind: 'text', text: '{' }, chunked: false, contentType: undefined, credential: 'person',
    })
    expect(answer.status).toBe(404)
    expect(JSON.parse(answer.text)).toMatchObject({ error: 'NOT_FOUND' })
    const unknown = await check({
      route: { method: 'POST', path: '/console/api/tabs/:tabId/activate' }, method: undefined, parameters: [{ own: true }, { own: true }], query: [undefined, undefined, undefined],
      mutation: 'extra-segment', body: { kind: 'none' }, chunked: false, contentType: undefined, credential: 'cookie',
    })
    expect(unknown.status).toBe(404)
  })

  it('random requests at every route: never a 5xx, always JSON, and a refusal moves neither the log nor a file', async () => {
    await fc.assert(fc.asyncProperty(fuzzRequest, async (each) => void (await check(each))), fuzzParameters({ numRuns: 300 }))
    await status()
  }, 240_000)
})

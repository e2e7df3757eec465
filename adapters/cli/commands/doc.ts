import { readFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { Engine } from '../../../core/engine.js'
import { USER } from '../../../core/events/actor.js'
import { documentKinds, type DocumentKind } from '../../../core/documents/events.js'
import { resolveDocument } from '../../../core/audit/resolve.js'
import { UsageError } from '../usage.js'

/**
 * `quire doc create|write|list`: the person's way to put content into the log from a shell, through the same
 * commands the MCP adapter calls.
 */
export async function docCommand(engine: Engine, args: string[], out: (line: string) => void): Promise<number> {
  const [action, ...rest] = args
  switch (action) {
    case 'create':
      return create(engine, rest, out)
    case 'write':
      return write(engine, rest, out)
    case 'list':
      return list(engine, out)
    default:
      throw new UsageError(`doc needs create, write or list${action ? `, not ${JSON.stringify(action)}` : ''}`)
  }
}

async function readUtf8(path: string): Promise<string> {
  const bytes = await readFile(path)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new UsageError(`${path} is not UTF-8 text`)
  }
}

async function create(engine: Engine, args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { kind: { type: 'string' } } })
  if (positionals.length !== 1) throw new UsageError('doc create needs exactly one FILE')
  const kind = (values.kind ?? 'markdown') as DocumentKind
  if (!documentKinds.includes(kind)) throw new UsageError(`--kind is one of ${documentKinds.join(', ')}`)
  const path = resolve(positionals[0]!)
  const content = await readUtf8(path)
  const { docId, revision } = await engine.commands.documents.create({
    kind, content, path, title: basename(path).replace(/\.[^.]*$/, ''), origin: 'file', actor: USER,
    matchesFile: !content.includes('\r'),
  })
  out(`${docId} ${revision}`)
  return 0
}

async function write(engine: Engine, args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, options: { 'expected-revision': { type: 'string' } },
  })
  if (positionals.length !== 2) throw new UsageError('doc write needs a document (ID or PATH) and a FILE')
  const docId = await resolveDocument(engine, positionals[0]!)
  const content = await readUtf8(positionals[1]!)
  const outcome = await engine.commands.documents.write({
    docId, content, expectedRevision: values['expected-revision'], actor: USER,
  })
  out(`${outcome.revision}${outcome.changed ? '' : ' (unchanged)'}`)
  return 0
}

async function list(engine: Engine, out: (line: string) => void): Promise<number> {
  for (const docId of await engine.documents.ids()) {
    const state = await engine.documents.get(docId)
    if (!state?.meta) continue
    out(`${docId}  ${state.meta.kind.padEnd(13)}  ${state.revision.padEnd(12)}  ${state.dirty ? 'dirty' : 'clean'}  ${state.meta.path ?? `(${state.meta.title})`}`)
  }
  return 0
}

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isAlias, isMap, isSeq, parseDocument, type Document } from 'yaml'
import { isQuireError } from '../../core/errors.js'
import { applyPatches } from '../../core/workflow/applyPatches.js'
import type { IRPatch } from '../../core/workflow/patches.js'
import { ACTIONLINT_CORPUS_DIR } from '../support/dataFiles.js'

/**
 * Every workflow of actionlint's test data (err, examples, ok, realworld; ~1,240 files, some deliberately broken)
 * through apply_patch: a no-op list gives the file back byte for byte; a real patch changes only its own node — the
 * text before and after the changed span is the original's, the change lies inside the edited node (or is a pure
 * insertion), and the parsed result equals the original with exactly that change. A file that is not valid YAML is
 * a clean INVALID_PATCH, never a crash.
 */

const CORPUS = ACTIONLINT_CORPUS_DIR
const FOLDERS = ['err', 'examples', 'ok', 'realworld']

function workflowFiles(): string[] {
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.ya?ml$/.test(entry.name)) files.push(path)
    }
  }
  for (const folder of FOLDERS) walk(join(CORPUS, folder))
  return files.sort()
}

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const plain = (text: string): unknown => parseDocument(text, { version: '1.2' }).toJS({ maxAliasCount: -1 })

/** One real edit: the patch, how it changes the plain value, and where in the source it may change bytes. */
interface Case {
  readonly name: string
  readonly patch: IRPatch
  readonly mutate: (value: Json) => void
  /** Original offsets the change may touch: a pure insertion anywhere, or a replacement inside [start, end]. */
  readonly span: readonly [number, number] | 'insertion'
  /** A patch that undoes this one, giving the original text back byte for byte. */
  readonly undo?: IRPatch
}

function endOfLine(text: string, position: number): number {
  if (position > 0 && text[position - 1] === '\n') return position
  const newline = text.indexOf('\n', position)
  return newline < 0 ? text.length : newline + 1
}

/** The node at a path of the parsed document, if it is there and not reached through an alias. */
function node(doc: Document.Parsed, path: readonly (string | number)[]): { range?: [number, number, number] | null } | null | undefined {
  const found: unknown = doc.getIn(path, true)
  if (isAlias(found)) return undefined
  return found as { range?: [number, number, number] | null } | null | undefined
}

function casesFor(text: string, doc: Document.Parsed, value: Json): Case[] {
  const cases: Case[] = []
  const nameNode = node(doc, ['name'])
  cases.push({
    name: 'workflow.set name',
    patch: { kind: 'workflow.set', path: 'name', value: 'Patched by Quire' },
    mutate: (v) => (v.name = 'Patched by Quire'),
    span: nameNode?.range ? [nameNode.range[0], endOfLine(text, nameNode.range[1])] : 'insertion',
  })
  const jobs = value.jobs
  const jobsNode = doc.get('jobs', true)
  if (!isObject(jobs) || !isMap(jobsNode)) return cases
  const jobIds = Object.keys(jobs)
  const first = jobIds[0]
  if (first === undefined || !isObject(jobs[first]) || !isMap(doc.getIn(['jobs', first], true))) return cases
  const timeout = node(doc, ['jobs', first, 'timeout-minutes'])
  cases.push({
    name: 'job.set timeout-minutes',
    patch: { kind: 'job.set', jobId: first, path: 'timeout-minutes', value: 17 },
    mutate: (v) => (((v.jobs as Json)[first] as Json)['timeout-minutes'] = 17),
    span: timeout?.range ? [timeout.range[0], endOfLine(text, timeout.range[1])] : 'insertion',
  })
  for (const jobId of jobIds) {
    const job = jobs[jobId]
    if (!isObject(job) || !Array.isArray(job.steps) || !isSeq(doc.getIn(['jobs', jobId, 'steps'], true))) continue
    const stepIndex = job.steps.findIndex((step: unknown) => isObject(step) && typeof step.uses === 'string')
    if (stepIndex < 0 || !isMap(doc.getIn(['jobs', jobId, 'steps', stepIndex], true))) continue
    const withNode = doc.getIn(['jobs', jobId, 'steps', stepIndex, 'with'], true)
    if (isAlias(withNode) || (withNode !== undefined && !isMap(withNode) && (withNode as { value?: unknown }).value !== null)) break
    cases.push({
      name: 'with.set new key',
      patch: { kind: 'with.set', jobId, stepIndex, key: 'quire-key', value: 'v: 1 # not a comment' },
      mutate: (v) => {
        const step = (((v.jobs as Json)[jobId] as Json).steps as Json[])[stepIndex]!
        step.with = { ...(isObject(step.with) ? step.with : {}), 'quire-key': 'v: 1 # not a comment' }
      },
      span: 'insertion',
      ...(withNode === undefined || isMap(withNode) ? { undo: { kind: 'with.remove', jobId, stepIndex, key: 'quire-key' } as const } : {}),
    })
    if (jobIds.length > 1 && jobId !== first) {
      const needs = job.needs
      const already = needs === first || (Array.isArray(needs) && needs.includes(first))
      if (!already && (needs === undefined || typeof needs === 'string' || Array.isArray(needs)) && !isAlias(doc.getIn(['jobs', jobId, 'needs'], true))) {
        const needsNode = node(doc, ['jobs', jobId, 'needs'])
        cases.push({
          name: 'needs.add',
          patch: { kind: 'needs.add', jobId, ref: first },
          mutate: (v) => {
            const target = (v.jobs as Json)[jobId] as Json
            target.needs = needs === undefined || needs === null ? [first] : [...(Array.isArray(needs) ? needs : [needs]), first]
          },
          span: needsNode?.range && !isSeq(needsNode) ? [needsNode.range[0], endOfLine(text, needsNode.range[1])] : 'insertion',
          ...(needs === undefined || Array.isArray(needs) ? { undo: { kind: 'needs.remove', jobId, ref: first } as const } : {}),
        })
      }
    }
    break
  }
  return cases
}

describe('workflow.apply_patch over the actionlint corpus', () => {
  it('keeps every byte outside the edited node, and refuses broken files cleanly', () => {
    const files = workflowFiles()
    expect(files.length).toBeGreaterThan(1_000)
    const counts = { files: files.length, parsed: 0, invalid: 0, noOps: 0, patched: 0, edits: 0, undone: 0, refusedEdits: 0 }
    const refusals: string[] = []
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      expect(applyPatches(text, [])).toBe(text)
      const doc = parseDocument(text, { version: '1.2' })
      let value: unknown
      try {
        value = doc.errors.length === 0 ? doc.toJS({ maxAliasCount: -1 }) : undefined
      } catch {
        value = undefined
      }
      if (!isObject(value)) {
        // Not a YAML mapping (or not YAML at all): a clean refusal, never a crash or an output.
        try {
          applyPatches(text, [{ kind: 'workflow.set', path: 'name', value: 'x' }])
          throw new Error(`${file}: a patch applied to a file that is not a YAML mapping`)
        } catch (error) {
          expect(isQuireError(error, 'INVALID_PATCH'), `${file}: ${String(error)}`).toBe(true)
        }
        counts.invalid++
        continue
      }
      counts.parsed++
      // No-op lists: setting values they already have gives the same text back.
      const noOps: IRPatch[] = []
      if (typeof value.name === 'string') noOps.push({ kind: 'workflow.set', path: 'name', value: value.name })
      const jobs = value.jobs
      if (isObject(jobs)) {
        for (const [jobId, job] of Object.entries(jobs)) {
          if (isObject(job) && typeof job['runs-on'] === 'string' && isMap(doc.getIn(['jobs', jobId], true))) {
            noOps.push({ kind: 'job.set', jobId, path: 'runs-on', value: job['runs-on'] })
            break
          }
        }
      }
      if (noOps.length > 0) {
        expect(applyPatches(text, noOps), file).toBe(text)
        counts.noOps++
      }
      let patched = false
      for (const edit of casesFor(text, doc as Document.Parsed, value)) {
        let out: string
        try {
          out = applyPatches(text, [edit.patch])
        } catch (error) {
          expect(isQuireError(error, 'INVALID_PATCH'), `${file} ${edit.name}: ${String(error)}`).toBe(true)
          refusals.push(`${file.slice(CORPUS.length + 1)} ${edit.name}: ${(error as Error).message}`)
          counts.refusedEdits++
          continue
        }
        counts.edits++
        patched = true
        // The changed span: everything before and after it is the original's.
        let prefix = 0
        while (prefix < text.length && prefix < out.length && text[prefix] === out[prefix]) prefix++
        let suffix = 0
        while (suffix < text.length - prefix && suffix < out.length - prefix && text[text.length - 1 - suffix] === out[out.length - 1 - suffix]) suffix++
        const changedEnd = text.length - suffix
        if (edit.span === 'insertion') {
          // Insertions may shift where the common prefix ends; what matters is that nothing of the original was lost.
          expect(out.length - text.length, `${file} ${edit.name} only adds`).toBeGreaterThan(0)
          expect(out.slice(0, prefix) + out.slice(out.length - suffix), `${file} ${edit.name}`).toBe(text.slice(0, prefix) + text.slice(changedEnd))
          expect(prefix + suffix, `${file} ${edit.name} removes nothing`).toBe(text.length)
        } else {
          expect(prefix, `${file} ${edit.name} starts inside the node`).toBeGreaterThanOrEqual(edit.span[0])
          expect(changedEnd, `${file} ${edit.name} ends inside the node`).toBeLessThanOrEqual(edit.span[1])
        }
        const expected = structuredClone(value)
        edit.mutate(expected)
        expect(plain(out), `${file} ${edit.name}`).toEqual(expected)
        // Idempotent: the same patch again changes nothing.
        expect(applyPatches(out, [edit.patch]), `${file} ${edit.name} twice`).toBe(out)
        if (edit.undo) {
          expect(applyPatches(out, [edit.undo]), `${file} ${edit.name} undone`).toBe(text)
          counts.undone++
        }
      }
      if (patched) counts.patched++
    }
    console.log(`workflow corpus: ${JSON.stringify(counts)}`)
    if (refusals.length > 0) console.log(`refused edits:\n  ${refusals.join('\n  ')}`)
    expect(counts.parsed).toBeGreaterThan(1_000)
    expect(counts.refusedEdits).toBeLessThanOrEqual(Math.ceil(counts.edits / 200))
  })
})

import { isAlias, isMap, isScalar, isSeq, type ParsedNode } from 'yaml'
import { QuireError } from '../errors.js'
import {
  applySplice, appendItem, deleteItem, deletePair, insertPair, isEmptyValue, replaceItem, replacePairValue, UnsupportedLayout,
  type ParsedMap, type ParsedSeq, type Splice,
} from './edits.js'
import { deepEqual, findJob, findPair, findStep, keysOf, nodeAt, PatchTargetError, plainValue, refuseAlias, topMap } from './locate.js'
import type { IRPatch, PatchPath } from './patches.js'
import type { YamlValue } from './render.js'
import { parseSource, SourceError, type Source } from './source.js'

/**
 * Applies IRPatches to a workflow's YAML text, in order, each as a splice of the source: every byte outside the
 * edited node stays identical (comments, anchors, aliases, block scalars, blank lines, key order, quoting). Pure.
 *
 * After each patch the text is parsed again (the next patch addresses the new text) and the patch's intent is
 * checked on the result; a patch that would leave invalid YAML or miss its target is refused, so a bad splice can
 * never reach the document. Any refusal is INVALID_PATCH naming the patch index and what it addressed, and nothing
 * of the list applies. A list that changes nothing returns `source` itself; an empty list is not even parsed.
 */
export function applyPatches(source: string, patches: readonly IRPatch[]): string {
  if (patches.length === 0) return source
  let current: Source
  try {
    current = parseSource(source)
  } catch (error) {
    throw invalid(`Patch application failed: the workflow is not valid YAML: ${messageOf(error)}`)
  }
  patches.forEach((patch, index) => {
    const at = `patches[${index}]`
    let plan: Plan | null
    try {
      plan = planPatch(current, patch)
    } catch (error) {
      if (error instanceof PatchTargetError) throw invalid(`${at}: ${error.message}`)
      if (error instanceof UnsupportedLayout) throw invalid(`${at}: cannot edit this YAML in place (${error.message}); use document.write`)
      throw invalid(`${at}: Patch application failed: ${messageOf(error)}`)
    }
    if (!plan) return
    const text = applySplice(current.text, plan.splice)
    if (text === current.text) return
    let next: Source
    try {
      next = parseSource(text)
    } catch (error) {
      throw invalid(`${at}: Patch application failed: the edit would leave invalid YAML (${messageOf(error)})`)
    }
    const miss = plan.check(next)
    if (miss !== null) throw invalid(`${at}: Patch application failed: ${miss}`)
    current = next
  })
  return current.text
}

/** One patch as a splice, and the check its result must pass (null when it does). */
interface Plan {
  readonly splice: Splice
  check(next: Source): string | null
}

type Segment = string | number

function planPatch(source: Source, patch: IRPatch): Plan | null {
  switch (patch.kind) {
    case 'workflow.set':
      return planSet(source, topMap(source.doc), [], segmentsOf(patch.path), patch.value, { create: true, where: 'the workflow' })
    case 'job.set': {
      const job = findJob(source.doc, patch.jobId)
      return planSet(source, job.job, ['jobs', patch.jobId], segmentsOf(patch.path), patch.value, { create: false, where: job.where })
    }
    case 'step.set': {
      const step = findStep(findJob(source.doc, patch.jobId), patch.stepIndex)
      const base = ['jobs', patch.jobId, 'steps', patch.stepIndex]
      return planSet(source, step.step, base, segmentsOf(patch.path), patch.value, { create: false, where: step.where })
    }
    case 'with.set': {
      // `with:` itself is created when missing (VMark); the key is created or replaced.
      const step = findStep(findJob(source.doc, patch.jobId), patch.stepIndex)
      const base = ['jobs', patch.jobId, 'steps', patch.stepIndex]
      return planSet(source, step.step, base, ['with', patch.key], patch.value, { create: true, where: step.where })
    }
    case 'with.remove':
      return planWithRemove(source, patch.jobId, patch.stepIndex, patch.key)
    case 'needs.add':
      return planNeedsAdd(source, patch.jobId, patch.ref)
    case 'needs.remove':
      return planNeedsRemove(source, patch.jobId, patch.ref)
    case 'trigger.setFilters':
      return planSetFilters(source, patch.event, patch.filter, patch.value)
  }
}

/** A dotted path's segments; an array path is taken as given (its keys may contain dots). */
const segmentsOf = (path: PatchPath): string[] => (typeof path === 'string' ? path.split('.') : [...path])

const nest = (keys: readonly string[], value: YamlValue): YamlValue => keys.reduceRight<YamlValue>((inner, key) => ({ [key]: inner }), value)

const isEmptyish = (node: ParsedNode | null): boolean => isEmptyValue(node) || (isScalar(node) && node.value === null)

/**
 * Sets the value at `segments` below `root`. The last key is created when missing; missing maps on the way are
 * created only with `create` (workflow.set, with.set) and are an error otherwise (job.set, step.set), as in VMark
 * — but refused, not ignored. A segment on a sequence is an existing item index. Setting the current value is a no-op.
 */
function planSet(
  source: Source, root: ParsedMap, base: readonly Segment[], segments: readonly string[], value: YamlValue,
  options: { create: boolean; where: string },
): Plan | null {
  const target = [...base, ...segments]
  const expect = expectValue(target, value)
  let container: ParsedMap | ParsedSeq = root
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!
    const last = index === segments.length - 1
    const label = segments.slice(0, index + 1).join('.')
    let child: ParsedNode | null
    if (isMap(container)) {
      const map: ParsedMap = container
      const pair = findPair(map, segment)
      if (!pair) {
        if (!last && !options.create) {
          throw new PatchTargetError(`${options.where} has no ${label} (so ${segments.join('.')} cannot be set; keys there are ${keysOf(map).join(', ') || '(none)'})`)
        }
        return { splice: insertPair(source, map, segment, nest(segments.slice(index + 1), value)), check: expect }
      }
      if (last) return sameValue(source, pair.value, value) ? null : { splice: replacePairValue(source, map, pair, value), check: expect }
      child = pair.value
      if (isEmptyish(child)) {
        if (!options.create) throw new PatchTargetError(`${options.where}: ${label} is empty, not a mapping (so ${segments.join('.')} cannot be set)`)
        return { splice: replacePairValue(source, map, pair, nest(segments.slice(index + 1), value)), check: expect }
      }
    } else {
      const seq: ParsedSeq = container
      const parent = segments.slice(0, index).join('.')
      if (!/^\d+$/.test(segment)) throw new PatchTargetError(`${options.where}: ${parent} is a sequence; "${segment}" is not an item index`)
      const position = Number(segment)
      if (position >= seq.items.length) throw new PatchTargetError(`${options.where}: ${parent} has ${seq.items.length} items; index ${position} does not exist`)
      child = seq.items[position] ?? null
      if (last) return sameValue(source, child, value) ? null : { splice: replaceItem(source, seq, position, value), check: expect }
    }
    refuseAlias(child, `${options.where}: ${label}`)
    if (!isMap(child) && !isSeq(child)) throw new PatchTargetError(`${options.where}: ${label} is a scalar, not a mapping (so ${segments.join('.')} cannot be set)`)
    container = child
  }
  throw new PatchTargetError('an empty path')
}

function planWithRemove(source: Source, jobId: string, stepIndex: number, key: string): Plan {
  const step = findStep(findJob(source.doc, jobId), stepIndex)
  const withPair = findPair(step.step, 'with')
  if (!withPair || isEmptyish(withPair.value)) throw new PatchTargetError(`${step.where} has no with: block, so with.${key} does not exist`)
  refuseAlias(withPair.value, `${step.where} with:`)
  const withMap = withPair.value
  if (!isMap(withMap)) throw new PatchTargetError(`${step.where} with: is not a mapping`)
  const pair = findPair(withMap, key)
  if (!pair) throw new PatchTargetError(`${step.where} has no with.${key}; with: keys are ${keysOf(withMap).join(', ')}`)
  const base = ['jobs', jobId, 'steps', stepIndex]
  // Removing the last key removes the then-empty `with:` too.
  if (withMap.items.length === 1) return { splice: deletePair(source, step.step, withPair), check: expectValue([...base, 'with'], undefined) }
  return { splice: deletePair(source, withMap, pair), check: expectValue([...base, 'with', key], undefined) }
}

/** A job's needs as a list of names, or a PatchTargetError for a needs: that is not a job id or a list of them. */
function needsList(source: Source, node: ParsedNode | null, where: string): string[] {
  const value = plainValue(source.doc, node)
  if (value === null || value === undefined) return []
  if (typeof value === 'string') return [value]
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value
  throw new PatchTargetError(`${where} needs: is not a job id or a list of job ids`)
}

function planNeedsAdd(source: Source, jobId: string, ref: string): Plan | null {
  const job = findJob(source.doc, jobId)
  if (ref === jobId) throw new PatchTargetError(`${job.where} cannot need itself`)
  // A need on a job that does not exist is a broken workflow: refused like any other unknown name.
  if (!findPair(job.jobs, ref)) throw new PatchTargetError(`job "${ref}" does not exist, so ${job.where} cannot need it; jobs are ${keysOf(job.jobs).join(', ')}`)
  const pair = findPair(job.job, 'needs')
  const check = expectNeeds(jobId, ref, true)
  if (!pair) return { splice: insertPair(source, job.job, 'needs', [ref]), check }
  refuseAlias(pair.value, `${job.where} needs:`)
  const needs = needsList(source, pair.value, job.where)
  if (needs.includes(ref)) return null
  if (isSeq(pair.value) && pair.value.items.length > 0) return { splice: appendItem(source, pair.value, ref), check }
  return { splice: replacePairValue(source, job.job, pair, [...needs, ref]), check }
}

function planNeedsRemove(source: Source, jobId: string, ref: string): Plan {
  const job = findJob(source.doc, jobId)
  const pair = findPair(job.job, 'needs')
  if (!pair || isEmptyish(pair.value)) throw new PatchTargetError(`${job.where} has no needs:, so it does not need "${ref}"`)
  refuseAlias(pair.value, `${job.where} needs:`)
  const needs = needsList(source, pair.value, job.where)
  const position = needs.indexOf(ref)
  if (position < 0) throw new PatchTargetError(`${job.where} does not need "${ref}"; it needs ${needs.join(', ')}`)
  const check = expectNeeds(jobId, ref, false)
  // The last need removed takes `needs:` with it (an empty needs: says nothing).
  if (needs.length === 1) return { splice: deletePair(source, job.job, pair), check }
  const seq = pair.value
  if (!isSeq(seq)) throw new PatchTargetError(`${job.where} needs: is not a sequence`)
  return { splice: deleteItem(source, seq, position), check }
}

/**
 * Replaces `on.<event>.<filter>`; an empty list removes the filter. The event must already be a trigger (a typo must
 * not add a new one). `on: push` and `on: [push, pull_request]` are rewritten as the equivalent mapping, the only way
 * to give an event filters; `push:` with no value becomes a mapping.
 */
function planSetFilters(source: Source, event: string, filter: string, value: readonly string[]): Plan | null {
  const top = topMap(source.doc)
  const onPair = findPair(top, 'on')
  if (!onPair || isEmptyish(onPair.value)) throw new PatchTargetError(`the workflow has no on: triggers, so trigger "${event}" does not exist`)
  refuseAlias(onPair.value, 'on:')
  const on = onPair.value
  const where = `trigger "${event}"`
  const check = expectValue(['on', event, filter], value.length === 0 ? undefined : [...value])
  if (isMap(on)) {
    const eventPair = findPair(on, event)
    if (!eventPair) throw new PatchTargetError(`${where} does not exist; triggers are ${keysOf(on).join(', ')}`)
    refuseAlias(eventPair.value, where)
    const filters = eventPair.value
    if (isEmptyish(filters)) return value.length === 0 ? null : { splice: replacePairValue(source, on, eventPair, { [filter]: [...value] }), check }
    if (!isMap(filters)) throw new PatchTargetError(`${where} is not a mapping, so it has no filters`)
    const filterPair = findPair(filters, filter)
    if (value.length === 0) return filterPair ? { splice: deletePair(source, filters, filterPair), check } : null
    if (!filterPair) return { splice: insertPair(source, filters, filter, [...value]), check }
    refuseAlias(filterPair.value, `${where} ${filter}`)
    return sameValue(source, filterPair.value, [...value]) ? null : { splice: replacePairValue(source, filters, filterPair, [...value]), check }
  }
  const events = plainValue(source.doc, on)
  const names = typeof events === 'string' ? [events] : Array.isArray(events) ? events.filter((name): name is string => typeof name === 'string') : []
  if (!names.includes(event)) throw new PatchTargetError(`${where} does not exist; triggers are ${names.join(', ') || '(none)'}`)
  if (value.length === 0) return null
  const rewritten = Object.fromEntries(names.map((name): [string, YamlValue] => [name, name === event ? { [filter]: [...value] } : null]))
  return { splice: replacePairValue(source, top, onPair, rewritten), check }
}

function sameValue(source: Source, node: ParsedNode | null, value: YamlValue): boolean {
  return !isAlias(node) && deepEqual(plainValue(source.doc, node), value)
}

/** The check that the node at `path` now holds `value` (undefined: that it is gone). */
function expectValue(path: readonly Segment[], value: YamlValue | undefined): (next: Source) => string | null {
  return (next) => {
    const actual = plainValue(next.doc, nodeAt(next.doc, path))
    return deepEqual(actual, value) ? null : `${path.join('.')} would be ${JSON.stringify(actual)}, not ${JSON.stringify(value)}`
  }
}

function expectNeeds(jobId: string, ref: string, present: boolean): (next: Source) => string | null {
  return (next) => {
    const node = nodeAt(next.doc, ['jobs', jobId, 'needs'])
    const needs = needsList(next, node ?? null, `job "${jobId}"`)
    return needs.includes(ref) === present ? null : `job "${jobId}" needs would be ${JSON.stringify(needs)}`
  }
}

const messageOf = (error: unknown): string => (error instanceof SourceError || error instanceof Error ? error.message : String(error))

const invalid = (message: string): QuireError => new QuireError('INVALID_PATCH', message)

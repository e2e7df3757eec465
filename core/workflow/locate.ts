import { isAlias, isMap, isScalar, isSeq, type Document, type ParsedNode } from 'yaml'
import type { ParsedMap, ParsedPair, ParsedSeq } from './edits.js'
import { isRanged } from './source.js'

/**
 * Finds what a patch addresses by its meaning (job id, step index, key path) and says precisely what is missing
 * when it is not there: an unknown job, step or key is refused, never silently ignored (VMark no-ops instead).
 */

/** A patch addresses something that is not there, or not of the needed shape; the message names it. */
export class PatchTargetError extends Error {}

export const keyName = (pair: ParsedPair): string | undefined =>
  isScalar(pair.key) && pair.key.value !== null && typeof pair.key.value !== 'object' ? String(pair.key.value) : undefined

export const findPair = (map: ParsedMap, key: string): ParsedPair | undefined => map.items.find((pair) => keyName(pair) === key)

export const keysOf = (map: ParsedMap): string[] => map.items.map(keyName).filter((key): key is string => key !== undefined)

const list = (keys: readonly string[]): string => (keys.length === 0 ? '(none)' : keys.join(', '))

/** Refuses an alias as a container: editing through `*name` would change every place that uses the anchor. */
export function refuseAlias(node: ParsedNode | null, what: string): void {
  if (isAlias(node)) throw new PatchTargetError(`${what} is an alias (*${node.source}); edit the node anchored as &${node.source} instead`)
}

export function topMap(doc: Document.Parsed): ParsedMap {
  const contents = doc.contents
  if (!isMap(contents)) throw new PatchTargetError("the workflow's top level is not a mapping")
  return contents
}

export interface JobTarget {
  readonly jobs: ParsedMap
  readonly job: ParsedMap
  readonly where: string
}

export function findJob(doc: Document.Parsed, jobId: string): JobTarget {
  const jobsPair = findPair(topMap(doc), 'jobs')
  if (!jobsPair) throw new PatchTargetError(`job "${jobId}" does not exist; the workflow has no jobs:`)
  refuseAlias(jobsPair.value, 'jobs:')
  const jobs = jobsPair.value
  if (!isMap(jobs)) throw new PatchTargetError(`job "${jobId}" does not exist; jobs: is not a mapping`)
  const pair = findPair(jobs, jobId)
  if (!pair) throw new PatchTargetError(`job "${jobId}" does not exist; jobs are ${list(keysOf(jobs))}`)
  const where = `job "${jobId}"`
  refuseAlias(pair.value, where)
  if (!isMap(pair.value)) throw new PatchTargetError(`${where} is not a mapping`)
  return { jobs, job: pair.value, where }
}

export interface StepTarget {
  readonly step: ParsedMap
  readonly where: string
}

export function findStep(job: JobTarget, stepIndex: number): StepTarget {
  const stepsPair = findPair(job.job, 'steps')
  if (!stepsPair) throw new PatchTargetError(`${job.where} has no steps:; stepIndex ${stepIndex} does not exist`)
  refuseAlias(stepsPair.value, `${job.where} steps:`)
  const steps = stepsPair.value
  if (!isSeq(steps)) throw new PatchTargetError(`${job.where} steps: is not a sequence`)
  if (stepIndex >= steps.items.length) {
    const count = steps.items.length
    throw new PatchTargetError(`${job.where} has ${count} step${count === 1 ? '' : 's'}; stepIndex ${stepIndex} does not exist`)
  }
  const where = `step ${stepIndex} of ${job.where}`
  const step = (steps as ParsedSeq).items[stepIndex] ?? null
  refuseAlias(step, where)
  if (!isMap(step)) throw new PatchTargetError(`${where} is not a mapping`)
  return { step, where }
}

/** The node at `path` below `root` (aliases resolved), `null` for an empty value, undefined when absent. */
export function nodeAt(doc: Document.Parsed, path: readonly (string | number)[]): ParsedNode | null | undefined {
  let node: ParsedNode | null | undefined = doc.contents
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc) as ParsedNode | undefined
    if (isMap(node)) node = findPair(node, String(segment))?.value
    else if (isSeq(node) && /^\d+$/.test(String(segment))) node = (node as ParsedSeq).items[Number(segment)]
    else return undefined
    if (node === undefined) return undefined
  }
  return node
}

/** The plain value of a node (aliases expanded), `undefined` for an absent one. */
export function plainValue(doc: Document.Parsed, node: ParsedNode | null | undefined): unknown {
  if (node === undefined) return undefined
  if (node === null) return null
  return isRanged(node) ? node.toJS(doc, { maxAliasCount: -1 }) : undefined
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]))
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  const aKeys = Object.keys(a)
  const bKeys = Object.keys(b)
  return aKeys.length === bKeys.length && aKeys.every((key) => Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

import * as Y from 'yjs'
import type { Patch, Trace } from './traceFile.js'

/**
 * Simulated Yjs peers that type a trace: each transaction is made by its agent's own Y.Doc, exactly as an editor
 * would, and yields the Yjs update that transaction produced. For concurrent traces each agent's document is first
 * brought to the transaction's parent version by merging the updates it has not seen yet.
 */
export function* traceUpdates(trace: Trace): Generator<Uint8Array> {
  if (trace.kind === 'sequential') {
    const peer = new TypingPeer(agentClientId(0))
    if (trace.startContent.length > 0) yield peer.type([[0, 0, trace.startContent]])
    for (const txn of trace.txns) yield peer.type(txn.patches)
    peer.doc.destroy()
    return
  }
  const updates: Uint8Array[] = []
  const peers = new Map<number, { peer: TypingPeer; seen: Uint8Array }>()
  for (let index = 0; index < trace.txns.length; index++) {
    const txn = trace.txns[index]!
    let agent = peers.get(txn.agent)
    if (!agent) {
      agent = { peer: new TypingPeer(agentClientId(txn.agent)), seen: new Uint8Array(trace.txns.length) }
      peers.set(txn.agent, agent)
    }
    const missing = unseenAncestors(trace.txns, txn.parents, agent.seen)
    for (const ancestor of missing) {
      Y.applyUpdate(agent.peer.doc, updates[ancestor]!)
      agent.seen[ancestor] = 1
    }
    const update = agent.peer.type(txn.patches)
    updates.push(update)
    agent.seen[index] = 1
    yield update
  }
  for (const { peer } of peers.values()) peer.doc.destroy()
}

/**
 * Yjs orders concurrent insertions at one place by client id; the traces' end content orders them by agent number.
 * Client ids that rise with the agent number make both agree, so a replay ends exactly at `endContent`.
 */
export const agentClientId = (agent: number): number => 1_000 + agent

/** Transactions in the history of `parents` that `seen` lacks, in trace (causal) order. */
function unseenAncestors(txns: readonly { parents: number[] }[], parents: readonly number[], seen: Uint8Array): number[] {
  const found = new Set<number>()
  const stack = [...parents]
  while (stack.length > 0) {
    const index = stack.pop()!
    if (seen[index] || found.has(index)) continue
    found.add(index)
    stack.push(...txns[index]!.parents)
  }
  return [...found].sort((a, b) => a - b)
}

/** One editor: applies code-point patches to its `source` text and hands back each transaction's update. */
class TypingPeer {
  readonly doc: Y.Doc
  private readonly text: Y.Text
  private astral = false
  private last: Uint8Array = new Uint8Array(0)

  constructor(clientID: number) {
    this.doc = new Y.Doc()
    this.doc.clientID = clientID
    this.text = this.doc.getText('source')
    this.doc.on('update', (update: Uint8Array) => {
      this.last = update
    })
  }

  type(patches: readonly Patch[]): Uint8Array {
    this.last = new Uint8Array(0)
    this.doc.transact(() => {
      for (const [position, deleteCount, insert] of patches) {
        const start = this.offset(position)
        if (deleteCount > 0) this.text.delete(start, this.offset(position + deleteCount) - start)
        if (insert.length > 0) {
          this.text.insert(start, insert)
          this.astral ||= /[\uD800-\uDBFF]/.test(insert)
        }
      }
    })
    return this.last
  }

  /** UTF-16 offset of a code-point offset; identical unless the text holds astral characters. */
  private offset(codePoint: number): number {
    if (!this.astral) return codePoint
    const text = this.text.toString()
    let units = 0
    for (let points = 0; points < codePoint && units < text.length; points++) {
      const code = text.charCodeAt(units)
      units += code >= 0xd800 && code <= 0xdbff ? 2 : 1
    }
    return units
  }
}

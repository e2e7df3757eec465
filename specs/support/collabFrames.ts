import * as Y from 'yjs'

/** lib0's variable-length unsigned integer, as bytes: how the y-websocket protocol frames lengths and numbers. */
export function varUint(value: number): number[] {
  const bytes: number[] = []
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80)
    value = Math.floor(value / 128)
  }
  bytes.push(value)
  return bytes
}

/** A real Yjs update inserting `text` into `source` (from a fresh client), for well-formed edits in frame tests. */
export function insertUpdate(text: string): Uint8Array {
  const doc = new Y.Doc()
  let update: Uint8Array = new Uint8Array()
  doc.on('update', (produced: Uint8Array) => (update = produced))
  doc.getText('source').insert(0, text)
  doc.destroy()
  return update
}

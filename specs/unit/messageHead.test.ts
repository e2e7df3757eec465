/**
 * MessageHeadReader: the id and method of a message too large to hold, read in pieces in constant memory, so an
 * oversized request over stdio can be answered by id (issue 12, item 5).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MessageHeadReader } from '../../adapters/mcp/messageHead.js'

function read(text: string, cuts: readonly number[] = []): ReturnType<MessageHeadReader['head']> {
  const bytes = Buffer.from(text, 'utf8')
  const reader = new MessageHeadReader()
  let start = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    reader.feed(bytes.subarray(start, Math.max(start, Math.min(cut, bytes.length))))
    start = Math.max(start, Math.min(cut, bytes.length))
  }
  reader.feed(bytes.subarray(start))
  return reader.head()
}

describe('MessageHeadReader', () => {
  it('reads the top-level id the SDK writes after params, one byte at a time', () => {
    const text = JSON.stringify({ method: 'tools/call', params: { name: 'document', arguments: { id: 'inner', method: 'x', content: 'y'.repeat(1000) } }, jsonrpc: '2.0', id: 7 })
    expect(read(text, [...text].map((_, i) => i))).toEqual({ id: 7, method: 'tools/call' })
  })

  it('reads string ids with escapes, and ignores "id" inside strings and nested values', () => {
    const content = 'a "quoted" \\"id\\":5, {"id": 6} \\\\'
    expect(read(JSON.stringify({ jsonrpc: '2.0', id: 'a"b\\c', method: 'tools/call', params: { content } }))).toEqual({ id: 'a"b\\c', method: 'tools/call' })
    expect(read(`{ "jsonrpc" : "2.0" ,\n "params" : { "id" : 1 , "list" : [ {"id":2} ] } , "method" : "ping" , "id" : -3.5e2 }`)).toEqual({ id: -350, method: 'ping' })
  })

  it('has no id for a notification, a null id, an array, or text that is not JSON', () => {
    expect(read(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { id: 1 } }))).toEqual({ id: undefined, method: 'notifications/message' })
    expect(read('{"jsonrpc":"2.0","id":null,"method":"ping"}')).toEqual({ id: undefined, method: 'ping' })
    expect(read('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).toEqual({ id: undefined, method: undefined })
    expect(read('x'.repeat(10_000))).toEqual({ id: undefined, method: undefined })
  })

  it('a message cut short keeps what was read before the cut', () => {
    expect(read('{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"content":"xxxx')).toEqual({ id: 'r-1', method: 'tools/call' })
  })

  it('agrees with JSON.parse on any request, whatever its key order and however it is cut', () => {
    const id = fc.oneof(fc.integer(), fc.string({ maxLength: 40 }))
    const request = fc.record({ jsonrpc: fc.constant('2.0'), id, method: fc.string({ maxLength: 40 }), params: fc.dictionary(fc.string(), fc.jsonValue()) })
    fc.assert(
      fc.property(request, fc.array(fc.nat()), fc.boolean(), (message, cuts, idFirst) => {
        const ordered = idFirst ? { id: message.id, jsonrpc: '2.0', method: message.method, params: message.params } : { params: message.params, method: message.method, jsonrpc: '2.0', id: message.id }
        const text = JSON.stringify(ordered)
        const parsed = JSON.parse(text) as { id: string | number; method: string }
        expect(read(text, cuts.map((cut) => cut % (text.length + 1)))).toEqual({ id: parsed.id, method: parsed.method })
      }),
    )
  })
})

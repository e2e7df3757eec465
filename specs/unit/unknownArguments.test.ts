import { describe, expect, it } from 'vitest'
import { closestName, unknownArguments, unknownArgumentsMessage } from '../../adapters/mcp/unknownArguments.js'

const DOCUMENT = ['action', 'tabId', 'content', 'kind', 'expected_revision', 'save', 'addresses']

describe('unknown argument names (strict arguments)', () => {
  it('are the given names the tool does not define, in the order given', () => {
    expect(unknownArguments({ action: 'write', tabid: 't', content: '', Save: true }, DOCUMENT)).toEqual(['tabid', 'Save'])
    expect(unknownArguments({ action: 'read' }, DOCUMENT)).toEqual([])
  })

  it('suggest the same name up to case and separators, then a name within two edits, then the one name abbreviated', () => {
    expect(closestName('tabid', DOCUMENT)).toBe('tabId')
    expect(closestName('TAB_ID', DOCUMENT)).toBe('tabId')
    expect(closestName('expectedRevision', DOCUMENT)).toBe('expected_revision')
    expect(closestName('contnet', DOCUMENT)).toBe('content')
    expect(closestName('adresses', DOCUMENT)).toBe('addresses')
    expect(closestName('expected', DOCUMENT)).toBe('expected_revision')
  })

  it('suggest nothing for a different word, a short name two edits away, or an abbreviation of several names', () => {
    expect(closestName('colour', DOCUMENT)).toBeUndefined()
    expect(closestName('id', DOCUMENT)).toBeUndefined()
    expect(closestName('', DOCUMENT)).toBeUndefined()
    expect(closestName('con', ['content', 'contentType'])).toBeUndefined()
  })

  it('spell out at most twenty names, quoting the ones that are not identifiers', () => {
    const many = Array.from({ length: 25 }, (_, index) => `x${index}`)
    const message = unknownArgumentsMessage('document', ['tab id', ...many], DOCUMENT)
    expect(message.startsWith('unknown argument "tab id"; did you mean tabId? unknown argument x0.')).toBe(true)
    expect(message).toContain('unknown argument x18. (and 6 more unknown arguments) document accepts: action, tabId,')
    expect(message).not.toContain('x19')
  })
})

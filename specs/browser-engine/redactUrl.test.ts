import { describe, expect, test } from 'vitest'
import { originOnly, redactUrl } from '../../adapters/browser/url.js'

describe('BR.GEN.3 URLs are redacted before an assistant sees them', () => {
  test('userinfo, query and fragment are dropped; scheme, host, port and path stay', () => {
    expect(redactUrl('https://ada:s3cret@example.com:8443/a/b.html?token=abc&x=1#section'))
      .toBe('https://example.com:8443/a/b.html')
    expect(redactUrl('http://127.0.0.1:4000/later/done?token=abc#fragment')).toBe('http://127.0.0.1:4000/later/done')
  })

  test('a URL with nothing to hide comes back as the URL parser writes it', () => {
    expect(redactUrl('https://Example.COM')).toBe('https://example.com/')
    expect(redactUrl('about:blank')).toBe('about:blank')
  })

  test('opaque URLs lose their query and fragment too', () => {
    expect(redactUrl('about:blank?leak=1#x')).toBe('about:blank')
  })

  test('an unparseable URL is returned unchanged', () => {
    expect(redactUrl('not a url')).toBe('not a url')
  })
})

describe('the origin alone, for what is shown before authorization', () => {
  test('an http(s) URL shows only its origin', () => {
    expect(originOnly('https://ada:pw@example.com:8443/private/path?q=1#f')).toBe('https://example.com:8443')
  })

  test('an opaque origin names its scheme', () => {
    expect(originOnly('data:text/html,<h1>hi</h1>')).toBe('data:(opaque)')
  })

  test('an unparseable URL says so', () => {
    expect(originOnly('::nope')).toBe('(unknown origin)')
  })
})

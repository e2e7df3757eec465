/** The redaction rules are core's (the `browser` stream records only redacted URLs); the engine uses the same ones. */
export { originOnly, redactUrl } from '../../core/browser/url.js'

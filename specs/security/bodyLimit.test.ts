/**
 * The person's HTTP APIs read bounded bodies (issue 11, finding 11): `/admin` and `/console/api` answer a 50 MB
 * body with 413 and a JSON error at once, whether its size is announced (Content-Length) or it streams in chunks,
 * and the daemon goes on answering.
 */
import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchDaemon, type Daemon } from '../support/mcpHarness.js'

const HUGE = 50 * 1024 * 1024

/** A JSON-looking body of `size` bytes, sent in 1 MiB chunks without a Content-Length. */
function chunked(size: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1024 * 1024).fill(0x20)
  let sent = 0
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close()
      controller.enqueue(chunk)
      sent += chunk.length
    },
  })
}

describe('body limits of /admin and /console/api', () => {
  let daemon: Daemon

  beforeAll(async () => {
    daemon = await launchDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
    await rm(daemon.home, { recursive: true, force: true })
  })

  const post = (path: string, body: string | ReadableStream<Uint8Array>, extra: RequestInit = {}) =>
    fetch(`${daemon.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body,
      ...extra,
    })

  for (const path of ['/admin/settings', '/admin/agents', '/console/api/panels/settings', '/console/api/docs/doc-0/comments']) {
    it(`${path}: a 50 MB body is 413 with a JSON error, sized or chunked; the daemon still answers`, async () => {
      const sized = await post(path, `{"key":"${'x'.repeat(HUGE)}"}`)
      expect(sized.status).toBe(413)
      expect(await sized.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/1 MiB/) })
      const streamed = await post(path, chunked(HUGE), { duplex: 'half' } as RequestInit)
      expect(streamed.status).toBe(413)
      expect(await streamed.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' })
      const status = await fetch(`${daemon.url}/admin/status`, { headers: { authorization: `Bearer ${daemon.token}` } })
      expect(status.status).toBe(200)
    })
  }
})

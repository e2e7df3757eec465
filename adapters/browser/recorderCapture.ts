import type { CDPSession, Page } from 'playwright-core'
import { z } from 'zod'
import { FIELD_KINDS, type CapturedEvent } from '../../core/browser/workflow/recordDraft.js'
import { RECORDER_BINDING, RECORDER_SHIM_SOURCE, RECORDER_WORLD } from './recorderShim.js'

/**
 * Arms the capture shim on one page through a DevTools session of its own (BR.WORKFLOW_RECORD.4, .12): the binding is
 * exposed to the recorder's isolated world only, the shim runs in that world of the document shown now and of every
 * document the tab loads until it is disarmed, and the main frame's loads are reported as they commit. What the
 * binding brings is checked against the shim's message shapes; anything else is dropped (a renderer is not trusted to
 * keep to them).
 */

export interface CaptureSink {
  /**
   * The main frame committed a new document at `url` (unredacted: the draft keeps only its origin and path).
   * `byPage`: the page itself asked for it (a link, a form, its script), not the browser (an assistant's navigate).
   */
  page(url: string, byPage: boolean): void
  event(event: CapturedEvent): void
  /** The person did something no step can name (a submit without a button). */
  unlocatable(): void
}

export interface ArmedCapture {
  disarm(): Promise<void>
}

const bounded = z.string().max(10_000)
const message = z.discriminatedUnion('t', [
  z.object({ t: z.literal('click'), role: bounded, name: bounded }).strict(),
  z.object({ t: z.literal('edit'), role: bounded, name: bounded, field: z.enum(FIELD_KINDS) }).strict(),
  z.object({ t: z.literal('unlocatable') }).strict(),
])

export async function armCapture(page: Page, sink: CaptureSink): Promise<ArmedCapture> {
  const cdp = await page.context().newCDPSession(page)
  try {
    return await arm(cdp, sink)
  } catch (error) {
    await cdp.detach().catch(() => undefined)
    throw error
  }
}

async function arm(cdp: CDPSession, sink: CaptureSink): Promise<ArmedCapture> {
  const { frameTree } = await cdp.send('Page.getFrameTree')
  const mainFrame = frameTree.frame.id
  // The recorder's worlds in the main frame: only their binding calls are the shim's.
  const worlds = new Set<number>()
  let armed = true
  cdp.on('Runtime.executionContextCreated', ({ context }) => {
    const frameId = (context.auxData as { frameId?: string } | undefined)?.frameId
    if (context.name === RECORDER_WORLD && frameId === mainFrame) worlds.add(context.id)
  })
  cdp.on('Runtime.executionContextDestroyed', ({ executionContextId }) => worlds.delete(executionContextId))
  cdp.on('Runtime.executionContextsCleared', () => worlds.clear())
  // Chromium tells a navigation the page asked for (renderer-initiated) before it commits; the browser's own are silent.
  let requestedByPage = false
  cdp.on('Page.frameRequestedNavigation', ({ frameId }) => {
    if (frameId === mainFrame) requestedByPage = true
  })
  cdp.on('Page.frameNavigated', ({ frame }) => {
    if (frame.parentId !== undefined) return
    const byPage = requestedByPage
    requestedByPage = false
    if (armed) sink.page(frame.url, byPage)
  })
  cdp.on('Runtime.bindingCalled', ({ name, payload, executionContextId }) => {
    if (!armed || name !== RECORDER_BINDING || !worlds.has(executionContextId)) return
    let parsed: z.infer<typeof message>
    try {
      parsed = message.parse(JSON.parse(payload))
    } catch {
      return
    }
    if (parsed.t === 'unlocatable') sink.unlocatable()
    else if (parsed.t === 'click') sink.event({ kind: 'click', role: parsed.role, name: parsed.name })
    else sink.event({ kind: 'edit', role: parsed.role, name: parsed.name, field: parsed.field })
  })
  await cdp.send('Page.enable')
  await cdp.send('Runtime.enable')
  await cdp.send('Runtime.addBinding', { name: RECORDER_BINDING, executionContextName: RECORDER_WORLD })
  const { identifier } = await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: RECORDER_SHIM_SOURCE, worldName: RECORDER_WORLD })
  // The document shown now was loaded before the script was added: it gets the shim in a world made for it.
  const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: mainFrame, worldName: RECORDER_WORLD, grantUniveralAccess: false })
  worlds.add(executionContextId)
  const installed = await cdp.send('Runtime.evaluate', { expression: RECORDER_SHIM_SOURCE, contextId: executionContextId, returnByValue: true })
  if (installed.result.value !== 'armed' && installed.result.value !== 'present') {
    throw new Error(`the capture shim did not arm (${String(installed.result.value ?? installed.exceptionDetails?.text)})`)
  }
  return {
    async disarm() {
      if (!armed) return
      // A round trip through each world first: what the shim reported before it (the person's last click) arrives
      // ahead of its answer on this session, so the stop misses nothing the person did before it.
      for (const contextId of worlds) await cdp.send('Runtime.evaluate', { expression: '0', contextId }).catch(() => undefined)
      armed = false
      await cdp.send('Page.removeScriptToEvaluateOnNewDocument', { identifier }).catch(() => undefined)
      // The listeners of the document shown now go too: a disarmed tab holds nothing of the recorder.
      for (const contextId of worlds) {
        await cdp.send('Runtime.evaluate', { expression: 'globalThis.__quireRecorder?.disarm()', contextId }).catch(() => undefined)
      }
      await cdp.send('Runtime.removeBinding', { name: RECORDER_BINDING }).catch(() => undefined)
      await cdp.detach().catch(() => undefined)
    },
  }
}

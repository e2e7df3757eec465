import type { Services } from './services.js'
import { FileWatcher, type FileChange } from '../fs/fileWatcher.js'
import { decodeText } from '../fs/readText.js'

/**
 * The disk as a participant: every file shown in a tab is watched, and each change another program makes is handed
 * to the core (`files.observeDiskChange`), which decides what it means for the document. Quire's own saves are
 * announced to the watcher beforehand and are not reported back.
 */
export class DiskSync {
  readonly watcher: FileWatcher
  private watched = new Set<string>()
  private readonly stop: () => void
  private chain: Promise<void> = Promise.resolve()

  constructor(
    private readonly services: Services,
    private readonly report: (message: string) => void = () => {},
  ) {
    this.watcher = new FileWatcher({
      onChange: (change) => {
        this.chain = this.chain.then(() => this.handle(change)).catch((error: unknown) => report(`disk change of ${change.path}: ${(error as Error).message}`))
      },
      onError: (error, path) => report(`watching ${path}: ${(error as Error).message}`),
    })
    this.stop = services.engine.views.workspace.onChange(() => this.sync())
    this.sync()
  }

  /** Watches exactly the files of open tabs, each from the hash the document last matched on disk. */
  private sync(): void {
    const wanted = new Set<string>()
    for (const tab of this.services.engine.views.workspace.state.tabs.values()) if (tab.path !== null) wanted.add(tab.path)
    for (const path of wanted) {
      if (this.watched.has(path)) continue
      void this.services.files.savedDigest(path).then((sha256) => this.watcher.add(path, sha256 === undefined ? {} : { sha256 }))
    }
    for (const path of this.watched) if (!wanted.has(path)) this.watcher.remove(path)
    this.watched = wanted
  }

  private async handle(change: FileChange): Promise<void> {
    if (change.state !== 'present') return
    const { text } = decodeText(change.content, change.path)
    const outcome = await this.services.files.observeDiskChange(change.path, text, change.sha256)
    if (outcome === 'out-of-scope') this.report(`ignored a change at ${change.path}: it no longer resolves inside the workspace`)
  }

  close(): void {
    this.stop()
    this.watcher.close()
  }
}

import type { FilesEntry, FilesFolder, FilesRoot } from '../../../adapters/http/consoleFilesApi.js'
import { h } from '../dom.js'
import { ask } from './dialog.js'
import type { FilesApi } from './filesApi.js'

/** How often the shown folders are read again: files other programs add or remove appear within a second. */
const POLL_MS = 1000

const BADGES: Record<NonNullable<FilesEntry['kind']>, string> = { markdown: 'md', yaml: 'yaml', workflow: 'workflow', other: '' }

export interface FileTreeHost {
  /** The window the console shows: files open there. */
  window(): string
  /** The file of the tab the window shows, to mark it in the tree. */
  activePath(): string | null
  /** The console's state changed (a tab opened): show it now rather than at the next poll. */
  refresh(): void
}

/**
 * The file tree of each open workspace, beside the editor: folders (expanded on a click), files with their kind's
 * badge, the file of the current tab marked. A click on a file opens it (or shows its tab); New file, New folder and
 * Rename ask for a name. The shown folders are listed again every second, so a file another program adds, removes or
 * renames appears or goes without anyone asking: polling what is on screen is the simplest way that is always right
 * (a folder watch would miss changes while it is being set up and hold watches on folders nobody is looking at).
 */
export class FileTree {
  readonly element = h('aside', { className: 'files', attrs: { 'aria-label': 'Files' } })
  private readonly list = h('div', { className: 'files-list', attrs: { role: 'tree' } })
  private readonly error = h('div', { className: 'files-error', attrs: { role: 'alert', hidden: '' } })
  private roots: readonly FilesRoot[] = []
  private readonly expanded = new Set<string>()
  /** Roots seen before: a new workspace starts expanded, one the person collapsed stays so. */
  private readonly seenRoots = new Set<string>()
  private readonly listings = new Map<string, FilesFolder>()
  /** Where New file / New folder create: the folder last clicked, else the first workspace. */
  private selectedFolder: string | null = null
  private rendered = ''
  private timer: ReturnType<typeof setTimeout> | undefined
  private started = false

  constructor(
    private readonly api: FilesApi,
    private readonly host: FileTreeHost,
  ) {
    const toolbar = h(
      'div',
      { className: 'files-toolbar' },
      h('span', { className: 'files-heading', text: 'Files' }),
      h('button', { className: 'files-new-file', text: '+ File', title: 'New file in the selected folder', attrs: { type: 'button' }, onClick: () => void this.create('file') }),
      h('button', { className: 'files-new-folder', text: '+ Folder', title: 'New folder in the selected folder', attrs: { type: 'button' }, onClick: () => void this.create('directory') }),
    )
    this.element.append(toolbar, this.error, this.list)
  }

  /** The first open workspace folder, if any. */
  firstRoot(): string | null {
    return this.roots[0]?.path ?? null
  }

  start(): void {
    void this.poll()
  }

  /** Reads the roots and every folder on screen, then redraws if anything changed. */
  async poll(): Promise<void> {
    clearTimeout(this.timer)
    // Signed out: the page replaced the console, and nothing is left to show.
    if (this.started && !this.element.isConnected) return
    this.started = true
    try {
      const { roots } = await this.api.roots()
      this.roots = roots
      for (const root of roots) {
        if (!this.seenRoots.has(root.path)) this.expanded.add(root.path)
        this.seenRoots.add(root.path)
      }
      const shown = this.shownFolders()
      const listings = await Promise.all(shown.map((path) => this.api.list(path).catch(() => null)))
      this.listings.clear()
      shown.forEach((path, index) => {
        const listing = listings[index]
        if (listing) this.listings.set(path, listing)
        else this.expanded.delete(path) // gone, or no longer in scope
      })
    } catch {
      // The console's own poll reports an unreachable daemon or a lost session.
    }
    this.render()
    if (document.visibilityState === 'visible') this.timer = setTimeout(() => void this.poll(), POLL_MS)
    else document.addEventListener('visibilitychange', () => void this.poll(), { once: true })
  }

  /** Redraws the marks (the current tab's file) without waiting for the next poll. */
  render(): void {
    const key = JSON.stringify([this.roots, [...this.listings], [...this.expanded], this.selectedFolder, this.host.activePath()])
    if (key === this.rendered) return
    this.rendered = key
    if (this.roots.length === 0) {
      this.list.replaceChildren(h('p', { className: 'files-empty', text: 'No workspace is open. `quire serve --workspace DIR` opens one.' }))
      return
    }
    this.list.replaceChildren(...this.roots.map((root) => this.folderNode({ name: root.name, path: root.path, type: 'directory', kind: null, tabIds: [] }, 0, true)))
  }

  /** Expanded folders whose every ancestor is expanded too: the ones on screen. */
  private shownFolders(): string[] {
    const shown: string[] = []
    const visit = (path: string) => {
      if (!this.expanded.has(path)) return
      shown.push(path)
      for (const entry of this.listings.get(path)?.entries ?? []) if (entry.type === 'directory') visit(entry.path)
    }
    for (const root of this.roots) visit(root.path)
    // A folder expanded just now has no listing yet: it is read this time.
    for (const path of this.expanded) if (!shown.includes(path) && this.isUnderShown(path, shown)) shown.push(path)
    return shown
  }

  private isUnderShown(path: string, shown: readonly string[]): boolean {
    return shown.some((folder) => (this.listings.get(folder)?.entries ?? []).some((entry) => entry.path === path))
  }

  private folderNode(entry: FilesEntry, depth: number, isRoot = false): HTMLElement {
    const open = this.expanded.has(entry.path)
    const listing = this.listings.get(entry.path)
    const row = this.row(entry, depth, isRoot, open)
    const children = open && listing
      ? [
          ...listing.entries.map((child) => (child.type === 'directory' ? this.folderNode(child, depth + 1) : this.row(child, depth + 1, false, false))),
          ...(listing.truncated ? [h('p', { className: 'files-truncated', text: 'More entries are not shown.' })] : []),
        ]
      : []
    return h('div', { className: 'tree-folder', attrs: { role: 'group' } }, row, ...children)
  }

  private row(entry: FilesEntry, depth: number, isRoot: boolean, open: boolean): HTMLElement {
    const folder = entry.type === 'directory'
    const active = !folder && entry.path === this.host.activePath()
    const selected = folder && entry.path === this.currentFolder()
    const item = h(
      'button',
      {
        className: 'tree-item',
        title: entry.path,
        attrs: { type: 'button', role: 'treeitem', ...(folder ? { 'aria-expanded': String(open) } : {}), ...(active ? { 'aria-current': 'true' } : {}) },
        onClick: () => (folder ? this.toggle(entry.path) : void this.open(entry.path)),
      },
      h('span', { className: 'tree-twisty', text: folder ? (open ? '▾' : '▸') : '' }),
      h('span', { className: 'tree-name', text: entry.name }),
      ...(entry.kind && BADGES[entry.kind] ? [h('span', { className: `tree-kind kind-${entry.kind}`, text: BADGES[entry.kind] })] : []),
      ...(entry.tabIds.length > 0 ? [h('span', { className: 'tree-open', text: '●', title: 'open in a tab' })] : []),
    )
    const actions = isRoot ? [] : [h('button', { className: 'tree-rename', text: '✎', title: `Rename ${entry.name}`, attrs: { type: 'button', 'aria-label': `Rename ${entry.name}` }, onClick: () => void this.rename(entry) })]
    const row = h(
      'div',
      {
        className: `tree-row${folder ? ' folder' : ' file'}${active ? ' active' : ''}${selected ? ' selected' : ''}${isRoot ? ' root' : ''}`,
        attrs: { 'data-path': entry.path, 'data-type': entry.type },
      },
      item,
      ...actions,
    )
    row.style.paddingLeft = `${4 + depth * 14}px`
    return row
  }

  private toggle(path: string): void {
    this.selectedFolder = path
    if (this.expanded.has(path)) this.expanded.delete(path)
    else this.expanded.add(path)
    this.render()
    void this.poll()
  }

  private currentFolder(): string | null {
    const selected = this.selectedFolder
    if (selected && this.roots.some((root) => selected === root.path || selected.startsWith(`${root.path}/`))) return selected
    return this.roots[0]?.path ?? null
  }

  private async open(path: string): Promise<void> {
    await this.attempt(async () => {
      await this.api.open(path, this.host.window())
      this.host.refresh()
    })
  }

  private async create(type: 'file' | 'directory'): Promise<void> {
    const folder = this.currentFolder()
    if (!folder) return
    const answer = await ask({
      title: type === 'file' ? 'New file' : 'New folder',
      message: `In ${folder}`,
      input: { label: 'Name', value: type === 'file' ? 'untitled.md' : 'folder' },
      choices: [{ value: 'create', label: 'Create', primary: true }],
    })
    const name = answer.text.trim()
    if (answer.choice !== 'create' || name === '') return
    await this.attempt(async () => {
      await this.api.create(`${folder}/${name}`, type, this.host.window())
      this.expanded.add(folder)
      if (type === 'file') this.host.refresh()
      await this.poll()
    })
  }

  private async rename(entry: FilesEntry): Promise<void> {
    const parent = entry.path.slice(0, entry.path.lastIndexOf('/'))
    const answer = await ask({
      title: `Rename ${entry.type === 'directory' ? 'folder' : 'file'}`,
      message: `In ${parent}`,
      input: { label: 'New name', value: entry.name },
      choices: [{ value: 'rename', label: 'Rename', primary: true }],
    })
    const name = answer.text.trim()
    if (answer.choice !== 'rename' || name === '' || name === entry.name) return
    await this.attempt(async () => {
      const renamed = await this.api.rename(entry.path, `${parent}/${name}`)
      if (this.expanded.delete(entry.path)) this.expanded.add(renamed.to)
      if (renamed.retargeted.length > 0) this.host.refresh()
      await this.poll()
    })
  }

  private async attempt(action: () => Promise<void>): Promise<void> {
    this.error.hidden = true
    try {
      await action()
    } catch (failure) {
      this.error.hidden = false
      this.error.textContent = failure instanceof Error ? failure.message : String(failure)
    }
  }
}

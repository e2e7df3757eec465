/**
 * Coherence writes never follow a link out of the workspace (issue 25 item 2). A workspace holds a link where the
 * ledger would be — `.vmark` itself, `.vmark/ledger`, `.vmark/snapshots`, `.vmark/ledger/quarantine`, Quire's own
 * segment (a symbolic link, or a hard link to a file outside) — made here by the test as a cloned repository or
 * another program would leave it. A hostile assistant then does what makes Quire write the ledger: over the real MCP
 * SDK client it saves a file named `x$(touch PWNED).md` (the name goes into the ledger line) and asks for the
 * breakdown. Nothing outside the workspace may change (no folder, no snapshot holding the document's text, no JSON
 * line in the file the link names), the assistant's save still succeeds, and Quire says what it refused: a
 * `coherence.refused` event in its log naming the link, and the coherence tools answer the refusal instead of reading
 * through it.
 */
import { appendFile, link, mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { newUuidV7 } from '../../core/coherence/uuid.js'
import { files, folder, inProcess, ok, open, plain, removeAll, type Json } from '../support/conformance.js'

const HOSTILE_NAME = 'x$(touch PWNED).md'
const BASHRC = '# the person\'s shell start-up file\nexport PATH="$HOME/bin:$PATH"\n'

interface Case {
  readonly name: string
  /** The workspace-relative path of the link Quire must refuse. */
  readonly link: (writer: string) => string
  /** Makes the link (and whatever it points to) in `root`, pointing into `outside`. */
  readonly make: (root: string, outside: string, writer: string) => Promise<void>
  /** Whether reading the ledger goes through the link too (then the coherence tools refuse as well). */
  readonly reads: boolean
}

/** Quire's segment made a link (`symlink` or `link`) to a `bashrc` outside holding the person's start-up lines. */
function segmentLinkedToBashrc(linkWith: (target: string, path: string) => Promise<void>): Case['make'] {
  return async (root, outside, writer) => {
    await writeFile(join(outside, 'bashrc'), BASHRC)
    await mkdir(join(root, '.vmark', 'ledger'), { recursive: true })
    await linkWith(join(outside, 'bashrc'), join(root, '.vmark', 'ledger', `${writer}.jsonl`))
  }
}

const CASES: readonly Case[] = [
  {
    name: '.vmark is a link to a folder outside',
    link: () => '.vmark',
    make: async (root, outside) => {
      await mkdir(join(outside, 'vmark'))
      await symlink(join(outside, 'vmark'), join(root, '.vmark'))
    },
    reads: true,
  },
  {
    name: '.vmark is a link to a folder outside that does not exist yet',
    link: () => '.vmark',
    make: async (root, outside) => symlink(join(outside, 'made-by-quire'), join(root, '.vmark')),
    reads: true,
  },
  {
    name: '.vmark/ledger is a link to a folder outside',
    link: () => '.vmark/ledger',
    make: async (root, outside) => {
      await mkdir(join(outside, 'ledger'))
      await mkdir(join(root, '.vmark'))
      await symlink(join(outside, 'ledger'), join(root, '.vmark', 'ledger'))
    },
    reads: true,
  },
  {
    name: '.vmark/snapshots is a link to a folder outside',
    link: () => '.vmark/snapshots',
    make: async (root, outside) => {
      await mkdir(join(outside, 'snapshots'))
      await mkdir(join(root, '.vmark', 'ledger'), { recursive: true })
      await symlink(join(outside, 'snapshots'), join(root, '.vmark', 'snapshots'))
    },
    reads: false,
  },
  {
    name: 'Quire\'s segment is a link to the person\'s ~/.bashrc',
    link: (writer) => `.vmark/ledger/${writer}.jsonl`,
    make: segmentLinkedToBashrc(symlink),
    reads: true,
  },
  {
    name: 'Quire\'s segment is a hard link to a file outside',
    link: (writer) => `.vmark/ledger/${writer}.jsonl`,
    make: segmentLinkedToBashrc(link),
    // Reading a file that has other names is harmless; only appending to one is refused.
    reads: false,
  },
  {
    name: '.vmark/ledger/quarantine is a link to a folder outside (a malformed line to copy there)',
    link: () => '.vmark/ledger/quarantine',
    make: async (root, outside) => {
      await mkdir(join(outside, 'quarantine'))
      await mkdir(join(root, '.vmark', 'ledger'), { recursive: true })
      await appendFile(join(root, '.vmark', 'ledger', `${newUuidV7()}.jsonl`), '{"format": 0, "torn\n')
      await symlink(join(outside, 'quarantine'), join(root, '.vmark', 'ledger', 'quarantine'))
    },
    reads: false,
  },
]

describe('issue 25 item 2: coherence writes never follow a link out of the workspace', () => {
  it.each(CASES)('$name: nothing outside changes, the save succeeds, and Quire says what it refused', async (story) => {
    const base = await folder('cohr-links')
    const root = join(base, 'workspace')
    const outside = join(base, 'outside')
    await mkdir(outside)
    await mkdir(root)
    await writeFile(join(root, HOSTILE_NAME), '# Notes\n')
    await writeFile(join(root, 'source.md'), '# Source\n')
    const session = await inProcess([root], { principal: 'mallory' })
    try {
      const { services } = session.quire
      await services.settings.set('trackProvenance', true, USER)
      const writer = await services.coherence.writer()
      await story.make(root, outside, writer)
      const before = await files(outside)

      await session.call('document', { action: 'read', tabId: await open(session, join(root, 'source.md')) })
      const tabId = await open(session, join(root, HOSTILE_NAME))
      const written = ok(await session.call('document', { action: 'write', tabId, content: '# Notes\n\nWritten from the source.\n', save: true }))
      expect(written.saved, JSON.stringify(written)).toBe(true)
      const edges = await session.call('coherence', { action: 'edges', workspace_root: root })
      const status = await session.call('coherence', { action: 'status', workspace_root: root })

      expect(await files(outside), 'something was written outside the workspace').toEqual(before)

      const refused: Json[] = []
      for await (const event of services.engine.store.readStream(`coherence:${root}`)) if (event.type === 'coherence.refused') refused.push(event.data)
      expect(refused.map((data) => data.path), JSON.stringify(refused)).toContain(story.link(writer))
      expect(refused[0].message).toMatch(/link/)
      if (story.reads) {
        expect(plain(edges)).toContain(story.link(writer))
        expect(plain(status)).toContain(story.link(writer))
      }
    } finally {
      await session.close()
      await removeAll(base)
    }
  })
})

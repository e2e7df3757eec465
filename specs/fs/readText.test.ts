import { execFileSync } from 'node:child_process'
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sha256Hex } from '../../adapters/fs/contentHash.js'
import { DEFAULT_MAX_TEXT_BYTES, decodeText, readText } from '../../adapters/fs/readText.js'
import { expectRefusal } from '../support/fsFixture.js'
import { useFsTempDirs } from '../support/fsTemp.js'

const newDir = useFsTempDirs()

describe('WS.OPEN.1 reading a file as document text', () => {
  it('WS.OPEN.1 reads UTF-8 text as is, with the hash and size of the bytes on disk', async () => {
    const dir = await newDir()
    const path = join(dir, 'a.md')
    const bytes = Buffer.from('# Titel\n\nGrüße, 漢字 and 😀\n', 'utf8')
    await writeFile(path, bytes)
    expect(await readText(path)).toEqual({
      text: '# Titel\n\nGrüße, 漢字 and 😀\n',
      hadCrlf: false,
      hadBom: false,
      sha256: sha256Hex(bytes),
      byteLength: bytes.byteLength,
    })
  })

  it('WS.OPEN.1 CRLF and lone CR become LF; hadCrlf reports CRLF so a save can restore it', async () => {
    const dir = await newDir()
    const path = join(dir, 'crlf.md')
    await writeFile(path, 'one\r\ntwo\r\nthree')
    expect(await readText(path)).toMatchObject({ text: 'one\ntwo\nthree', hadCrlf: true })
    await writeFile(path, 'old mac\rline\r')
    expect(await readText(path)).toMatchObject({ text: 'old mac\nline\n', hadCrlf: false })
    await writeFile(path, 'mixed\r\n\r\r\n\n')
    expect(await readText(path)).toMatchObject({ text: 'mixed\n\n\n\n', hadCrlf: true })
    // The hash is of the bytes on disk, not of the normalised text.
    expect((await readText(path)).sha256).toBe(sha256Hex('mixed\r\n\r\r\n\n'))
  })

  it('WS.OPEN.1 a leading UTF-8 BOM is dropped from the text and reported; a BOM elsewhere is content', async () => {
    const dir = await newDir()
    const path = join(dir, 'bom.md')
    await writeFile(path, '\uFEFFhello\uFEFF')
    expect(await readText(path)).toMatchObject({ text: 'hello\uFEFF', hadBom: true })
  })

  it('WS.OPEN.1 an empty file is an empty document', async () => {
    const dir = await newDir()
    await writeFile(join(dir, 'empty.md'), '')
    expect(await readText(join(dir, 'empty.md'))).toMatchObject({ text: '', byteLength: 0, sha256: sha256Hex('') })
  })
})

describe('WS.OPEN.3 files Quire cannot hold faithfully are INVALID_PATH with a clear message', () => {
  it('WS.OPEN.3 invalid UTF-8 is refused (never decoded with replacement characters)', async () => {
    const dir = await newDir()
    const samples = [
      [0xff, 0x41],
      [0xc3], // truncated sequence
      [0xc0, 0xaf], // overlong "/"
      [0xed, 0xa0, 0x80], // an encoded surrogate (CESU-8)
      [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], // a PNG header
    ]
    for (const [index, sample] of samples.entries()) {
      const path = join(dir, `bad${index}.md`)
      await writeFile(path, new Uint8Array(sample))
      const details = await expectRefusal(() => readText(path), 'INVALID_PATH', 'not_utf8')
      expect(details['path']).toBe(path)
    }
    expect(() => decodeText(new Uint8Array([0xff]), '/x.md')).toThrow(/not valid UTF-8/)
  })

  it('WS.OPEN.3 a file over the size limit is refused without reading it, naming both sizes', async () => {
    const dir = await newDir()
    const path = join(dir, 'big.md')
    await writeFile(path, '')
    await truncate(path, DEFAULT_MAX_TEXT_BYTES + 1) // sparse: instant, no 16 MiB written
    const details = await expectRefusal(() => readText(path), 'INVALID_PATH', 'too_large')
    expect(details['size']).toBe(DEFAULT_MAX_TEXT_BYTES + 1)
    await expect(readText(path)).rejects.toThrow(/16\.0 MiB/)
    await writeFile(path, 'x'.repeat(11))
    await expectRefusal(() => readText(path, { maxBytes: 10 }), 'INVALID_PATH', 'too_large')
    expect((await readText(path, { maxBytes: 11 })).text).toBe('x'.repeat(11))
  })

  it('WS.OPEN.3 a directory, a FIFO and a device are not regular files (and a FIFO does not block the open)', async () => {
    const dir = await newDir()
    await mkdir(join(dir, 'folder.md'))
    await expectRefusal(() => readText(join(dir, 'folder.md')), 'INVALID_PATH', 'not_a_file')
    execFileSync('mkfifo', [join(dir, 'pipe.md')])
    await expectRefusal(() => readText(join(dir, 'pipe.md')), 'INVALID_PATH', 'not_a_file')
    await expectRefusal(() => readText('/dev/zero'), 'INVALID_PATH', 'not_a_file')
  })

  it('WS.OPEN.3 a symlink is not followed (callers pass the real path from the scope check)', async () => {
    const dir = await newDir()
    await writeFile(join(dir, 'target.md'), 'target\n')
    await symlink(join(dir, 'target.md'), join(dir, 'link.md'))
    await expectRefusal(() => readText(join(dir, 'link.md')), 'INVALID_PATH', 'symlink')
  })

  it('WS.OPEN.3 a missing file is refused', async () => {
    const dir = await newDir()
    await expectRefusal(() => readText(join(dir, 'missing.md')), 'INVALID_PATH', 'not_found')
    await writeFile(join(dir, 'file.md'), 'x')
    await expectRefusal(() => readText(join(dir, 'file.md', 'below.md')), 'INVALID_PATH', 'not_found')
  })
})

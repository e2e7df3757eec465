import { join } from 'node:path'
import { repoRoot } from './cli.js'

/**
 * The third-party data the tests read, kept in the repository (specs/data/; each folder's SOURCE.md says where it
 * came from and under which licence), so a fresh clone tests with nothing beside it.
 */
export const DATA_DIR = join(repoRoot, 'specs', 'data')

/** actionlint's test corpus: err/, examples/, ok/ (with expected `.out` files) and realworld/ workflows. */
export const ACTIONLINT_CORPUS_DIR = join(DATA_DIR, 'actionlint-testdata')

/** A concurrent editing trace: two people typing into one document at once (gzipped JSON). */
export const FRIENDSFOREVER_TRACE = join(DATA_DIR, 'editing-traces', 'friendsforever.json.gz')

/** Ordinary mixed Chinese/English prose (VMark's Chinese MCP tool reference, as plain text). */
export const CHINESE_REFERENCE_TEXT = join(DATA_DIR, 'vmark-mcp-tools-zh', 'mcp-tools.zh.txt')

/**
 * y-leveldb 0.2.0 ships its types at dist/src/y-leveldb.d.ts but its package.json "exports" has no "types"
 * condition, so NodeNext resolution cannot find them. This declares the part the benchmarks use.
 */
declare module 'y-leveldb' {
  import type * as Y from 'yjs'

  export class LeveldbPersistence {
    constructor(location: string, options?: { levelOptions?: object })
    storeUpdate(docName: string, update: Uint8Array): Promise<number>
    getYDoc(docName: string): Promise<Y.Doc>
    destroy(): Promise<void>
  }
}

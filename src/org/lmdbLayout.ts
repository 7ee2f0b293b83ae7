/**
 * The on-disk layout of an LMDB data file, as the lmdb package (3.x, data format 2, 64-bit)
 * writes it: what `checkDataFile` needs to read a store's pages before lmdb maps the file.
 * Offsets are in bytes, little-endian; see `mdb.c` (`MDB_page_header`, `MDB_meta`, `MDB_db`,
 * `MDB_node`) in lmdb's sources.
 */

/** `MDB_MAGIC`, the first field of a meta page's content. */
export const lmdbMagic = 0xbeefc0de;
/** `MDB_DATA_VERSION`, in the low 16 bits of a meta page's version field. */
export const lmdbDataVersion = 2;
/** `P_INVALID`: the root of an empty tree. */
export const noPage = 0xffff_ffff_ffff_ffffn;
/** `CURSOR_STACK`: lmdb cannot descend a deeper tree. */
export const maxTreeDepth = 32;

/** The page header (`MDB_page_header`): page number, txn id, pad, flags, then lower and upper bounds (or an overflow run's page count). */
export const pageHeader = { size: 24, pgno: 0, pad: 16, flags: 18, lower: 20, upper: 22, overflowPages: 20 } as const;

export const pageFlags = { branch: 0x01, leaf: 0x02, overflow: 0x04, meta: 0x08, leaf2: 0x20, subPage: 0x40 } as const;

/** A meta page's content (`MDB_meta`), from the start of its page: magic, version, map size, the free and main trees, last page, txn id. */
export const metaLayout = { magic: 24, version: 28, mapSize: 40, freeDb: 48, mainDb: 96, lastPage: 144, txnId: 152, end: 168 } as const;

/** A tree's description (`MDB_db`): in a meta page for the free and main trees, as a node's value for a named sub-db. Its `pad` holds the page size in the free tree of a meta page. */
export const dbLayout = { size: 48, pad: 0, flags: 4, depth: 6, entries: 32, root: 40 } as const;

/** A node (`MDB_node`): data size (or child page) low and high words, flags (or the child page's top word), key size, then the key and data. */
export const nodeLayout = { size: 8, lo: 0, hi: 2, flags: 4, keySize: 6 } as const;

export const nodeFlags = { bigData: 0x01, subData: 0x02, dupData: 0x04 } as const;

/** A tree as a meta page or a sub-db node describes it. */
export interface TreeInfo {
  readonly root: bigint;
  readonly depth: number;
}

/** A meta page as `checkDataFile` reads it. */
export interface MetaPage {
  readonly magic: number;
  readonly version: number;
  readonly pageSize: number;
  readonly lastPage: bigint;
  readonly txnId: bigint;
  readonly free: TreeInfo;
  readonly main: TreeInfo;
}

/** The tree described at `offset` of `page`. */
export function readTree(page: Buffer, offset: number): TreeInfo {
  return { root: page.readBigUInt64LE(offset + dbLayout.root), depth: page.readUInt16LE(offset + dbLayout.depth) };
}

/** The meta page content in `page` (which starts at the page's first byte). */
export function readMeta(page: Buffer): MetaPage {
  return {
    magic: page.readUInt32LE(metaLayout.magic),
    version: page.readUInt32LE(metaLayout.version) & 0xffff,
    pageSize: page.readUInt32LE(metaLayout.freeDb + dbLayout.pad),
    lastPage: page.readBigUInt64LE(metaLayout.lastPage),
    txnId: page.readBigUInt64LE(metaLayout.txnId),
    free: readTree(page, metaLayout.freeDb),
    main: readTree(page, metaLayout.mainDb),
  };
}

/** The number of pages an overflow value of `size` bytes takes (`OVPAGES`). */
export function overflowPages(size: number, pageSize: number): number {
  return Math.floor((pageHeader.size - 1 + size) / pageSize) + 1;
}

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { describeError } from '../errors.js';
import {
  type MetaPage,
  type TreeInfo,
  lmdbDataVersion,
  lmdbMagic,
  maxTreeDepth,
  metaLayout,
  nodeFlags,
  nodeLayout,
  noPage,
  overflowPages,
  pageFlags,
  pageHeader,
  readMeta,
  readTree,
  dbLayout,
} from './lmdbLayout.js';

/**
 * Checks an LMDB data file in plain TypeScript, before lmdb ever maps it: lmdb trusts its file,
 * and a truncated or garbled one makes it read outside the file or follow garbage offsets,
 * which kills the process (SIGBUS, SIGSEGV, an assertion) with no log line. This reads the
 * meta pages (magic, version, page size, which one lmdb will use), then walks every tree from
 * the chosen meta — the free-page tree, the main tree and each named sub-db in it — checking
 * every page it reaches: inside the file, numbered as it should be, of the kind its parent
 * says, with bounds and nodes that fit the page, overflow runs inside the file, no page reached
 * twice, no tree deeper than lmdb can walk. Values are not decoded; the store validates those.
 *
 * Returns why the file is damaged, or undefined when it is sound, absent (a new store) or cannot be opened.
 */
export function checkDataFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    // Absent: a new store. Not to be opened (no permission, say): no sign of damage, and lmdb's
    // own open reports it; moving a sound store aside for it would hide the organisation.
    return undefined;
  }
  try {
    // Another process (a running `troupe serve` under `troupe org`) may commit while the file is
    // read: a walk that finds damage counts only if no commit happened meanwhile.
    let reason: string | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = currentMeta(fd);
      reason = typeof before === 'string' ? before : new TreeWalk(fd, before.pageSize, fstatSync(fd).size, before.lastPage).check(before);
      const after = reason === undefined ? before : currentMeta(fd);
      if (typeof before === 'string' || typeof after === 'string' || after.txnId === before.txnId) break;
    }
    return reason;
  } catch (error) {
    return `cannot read it: ${describeError(error)}`;
  } finally {
    closeSync(fd);
  }
}

/** The meta page lmdb would use now, or why there is none. */
function currentMeta(fd: number): MetaPage | string {
  const fileSize = fstatSync(fd).size;
  if (fileSize === 0) return 'the file is empty (0 bytes)';
  const first = readAt(fd, 0, Math.min(fileSize, 4096));
  if (first.length < metaLayout.end) return `the file is ${fileSize} bytes, too short for a meta page`;
  return chooseMeta(fd, first, fileSize);
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/**
 * The meta page lmdb will use: of the two meta pages (and, with overlapping sync, the copy in
 * the second half of page 0), the one with the highest txn id, as `mdb_env_read_header` picks.
 * Each candidate must be sound, since lmdb picks by txn id alone.
 */
function chooseMeta(fd: number, first: Buffer, fileSize: number): MetaPage | string {
  const flags = first.readUInt16LE(pageHeader.flags);
  const meta0 = readMeta(first);
  if ((flags & pageFlags.meta) === 0 || meta0.magic !== lmdbMagic) return 'page 0 is not an LMDB meta page (no magic number)';
  if (meta0.version !== lmdbDataVersion) return `meta page 0 has data format version ${meta0.version}, expected ${lmdbDataVersion}`;
  const pageSize = meta0.pageSize;
  if (pageSize < 512 || pageSize > 65_536 || (pageSize & (pageSize - 1)) !== 0) return `meta page 0 gives a page size of ${pageSize}`;
  if (fileSize < 2 * pageSize) return `the file is ${fileSize} bytes, shorter than its two meta pages of ${pageSize} bytes`;
  const candidates: Array<{ name: string; meta: MetaPage }> = [{ name: 'meta page 0', meta: meta0 }];
  // The copy overlapping sync keeps in the second half of page 0 has no magic; all zero when unused.
  const halfMeta = readMeta(readAt(fd, pageSize / 2, metaLayout.end));
  if (halfMeta.txnId !== 0n) candidates.push({ name: 'the meta copy in page 0', meta: halfMeta });
  const meta1 = readMeta(readAt(fd, pageSize, metaLayout.end));
  if (meta1.magic !== lmdbMagic) return 'page 1 is not an LMDB meta page (no magic number)';
  candidates.push({ name: 'meta page 1', meta: meta1 });
  const odd = candidates.find((candidate) => candidate.meta.pageSize !== pageSize);
  if (odd !== undefined) return `${odd.name} gives a page size of ${odd.meta.pageSize}, not ${pageSize}`;
  // Ties go to the first, as in lmdb's mdb_pick_meta.
  return candidates.reduce((chosen, candidate) => (candidate.meta.txnId > chosen.meta.txnId ? candidate : chosen)).meta;
}

const freeTree = 'the free-page tree';

/** Reads through one cached block of the file (1 MiB), for pages asked for in file order; a read across blocks goes to the file. */
class BlockReader {
  #start = -1;
  #block: Buffer = Buffer.alloc(0);

  constructor(
    private readonly fd: number,
    private readonly blockSize: number,
  ) {}

  read(position: number, length: number): Buffer {
    const start = position - (position % this.blockSize);
    if (position + length > start + this.blockSize) return readAt(this.fd, position, length);
    if (start !== this.#start) {
      this.#block = readAt(this.fd, start, this.blockSize);
      this.#start = start;
    }
    return this.#block.subarray(position - start, position - start + length);
  }
}

/**
 * A record of the free-page tree: a list of page numbers led by their count. lmdb copies as
 * many numbers as the count says (a garbled count reads far past the record), and may reserve
 * one slot more than it fills, so the count must fit the record, not match it.
 */
function checkFreeList(ids: Buffer): string | undefined {
  if (ids.length < 8 || ids.length % 8 !== 0) return `its free-page list is ${ids.length} bytes, not a whole list`;
  const count = ids.readBigUInt64LE(0);
  return count > BigInt(ids.length / 8 - 1) ? `its free-page list counts ${count} pages in ${ids.length} bytes` : undefined;
}

/** Where a page was reached from, for the reason given when it is damaged. */
interface PageVisit {
  readonly pgno: bigint;
  readonly level: number;
  readonly tree: string;
  readonly depth: number;
}

/** Walks the trees of one meta page, page by page. */
class TreeWalk {
  /** One bit per page of the file, set once a tree reaches the page: 1 MiB per 32 GiB of file. */
  readonly #seen: Uint8Array;
  readonly #pending: PageVisit[] = [];
  readonly #blocks: BlockReader;

  constructor(
    private readonly fd: number,
    private readonly pageSize: number,
    private readonly fileSize: number,
    private readonly lastPage: bigint,
  ) {
    this.#seen = new Uint8Array(Math.ceil(fileSize / pageSize / 8) + 1);
    this.#blocks = new BlockReader(fd, Math.max(pageSize, 1 << 20));
  }

  check(meta: MetaPage): string | undefined {
    const problem = this.#addTree(freeTree, meta.free) ?? this.#addTree('the main tree', meta.main);
    if (problem !== undefined) return problem;
    // Level by level, each in file order: the block reader then reads each block once a level.
    while (this.#pending.length > 0) {
      const level = this.#pending.splice(0).sort((a, b) => (a.pgno < b.pgno ? -1 : a.pgno > b.pgno ? 1 : 0));
      for (const visit of level) {
        const reason = this.#checkPage(visit);
        if (reason !== undefined) return reason;
      }
    }
    return undefined;
  }

  #addTree(tree: string, info: TreeInfo): string | undefined {
    if (info.root === noPage) return undefined;
    if (info.depth < 1 || info.depth > maxTreeDepth) return `${tree} claims a depth of ${info.depth}`;
    this.#pending.push({ pgno: info.root, level: 0, tree, depth: info.depth });
    return undefined;
  }

  /** Takes pages `pgno`… for one tree: each must be in use, inside the file and not taken before. */
  #claim(pgno: bigint, pages: bigint, tree: string): string | undefined {
    if (pgno < 2n || pgno + pages - 1n > this.lastPage) return `${tree} points to page ${pgno + pages - 1n}, outside the pages in use (2–${this.lastPage})`;
    if ((pgno + pages) * BigInt(this.pageSize) > BigInt(this.fileSize)) {
      return `${tree} needs page ${pgno + pages - 1n}, beyond the end of the file (${this.fileSize} bytes): the file is truncated`;
    }
    // Every page claimed lies inside the file (checked above), so inside the bitmap.
    for (let page = Number(pgno), end = Number(pgno + pages); page < end; page++) {
      const [byte, bit] = [Math.floor(page / 8), 1 << (page % 8)];
      if (((this.#seen[byte] ?? 0) & bit) !== 0) return `${tree} reaches page ${page} twice`;
      this.#seen[byte] = (this.#seen[byte] ?? 0) | bit;
    }
    return undefined;
  }

  /** The page `pgno`, claimed for `tree`, or why it cannot be. */
  #page(pgno: bigint, tree: string, reader: (position: number, length: number) => Buffer = (at, length) => readAt(this.fd, at, length)): Buffer | string {
    return this.#claim(pgno, 1n, tree) ?? reader(Number(pgno) * this.pageSize, this.pageSize);
  }

  #checkPage(visit: PageVisit): string | undefined {
    const { pgno, tree, level, depth } = visit;
    const page = this.#page(pgno, tree, (at, length) => this.#blocks.read(at, length));
    if (typeof page === 'string') return page;
    if (page.readBigUInt64LE(pageHeader.pgno) !== pgno) return `page ${pgno} of ${tree} is numbered ${page.readBigUInt64LE(pageHeader.pgno)}`;
    const flags = page.readUInt16LE(pageHeader.flags) & 0xff;
    const isLeaf = level === depth - 1;
    if (flags !== (isLeaf ? pageFlags.leaf : pageFlags.branch) && !(isLeaf && flags === (pageFlags.leaf | pageFlags.leaf2))) {
      return `page ${pgno} of ${tree} has flags 0x${flags.toString(16)}, expected a ${isLeaf ? 'leaf' : 'branch'} page`;
    }
    const lower = page.readUInt16LE(pageHeader.lower);
    const upper = page.readUInt16LE(pageHeader.upper);
    if (lower % 2 !== 0 || lower > upper || pageHeader.size + upper > this.pageSize)
      return `page ${pgno} of ${tree} has bounds ${lower}–${upper} that do not fit it`;
    const keys = lower / 2;
    if (keys === 0 && level > 0) return `page ${pgno} of ${tree} is empty`;
    if ((flags & pageFlags.leaf2) !== 0) {
      const keySize = page.readUInt16LE(pageHeader.pad);
      return pageHeader.size + keys * keySize > this.pageSize ? `page ${pgno} of ${tree} holds more fixed-size keys than fit` : undefined;
    }
    const nodes = { ...visit, isLeaf, upper };
    for (let i = 0; i < keys; i++) {
      const reason = this.#checkNode(page, pageHeader.size + page.readUInt16LE(pageHeader.size + 2 * i), nodes, i);
      if (reason !== undefined) return `page ${pgno} of ${tree}, node ${i}: ${reason}`;
    }
    return undefined;
  }

  #checkNode(page: Buffer, at: number, visit: PageVisit & { isLeaf: boolean; upper: number }, index: number): string | undefined {
    if (at < pageHeader.size + visit.upper || at + nodeLayout.size > this.pageSize) return `it starts at ${at}, outside the page's nodes`;
    const keySize = page.readUInt16LE(at + nodeLayout.keySize);
    const dataAt = at + nodeLayout.size + keySize;
    if (dataAt > this.pageSize) return `its key of ${keySize} bytes runs past the page`;
    const lo = page.readUInt16LE(at + nodeLayout.lo);
    const hi = page.readUInt16LE(at + nodeLayout.hi);
    const flags = page.readUInt16LE(at + nodeLayout.flags);
    if (!visit.isLeaf) {
      const child = BigInt(lo) | (BigInt(hi) << 16n) | (BigInt(flags) << 32n);
      this.#pending.push({ pgno: child, level: visit.level + 1, tree: visit.tree, depth: visit.depth });
      return undefined;
    }
    const dataSize = lo + hi * 0x1_0000;
    if ((flags & nodeFlags.bigData) !== 0) {
      if (dataAt + 8 > this.pageSize) return 'its overflow page number runs past the page';
      const first = page.readBigUInt64LE(dataAt);
      const reason = this.#checkOverflow(first, dataSize, visit.tree);
      if (reason !== undefined || visit.tree !== freeTree) return reason;
      return checkFreeList(readAt(this.fd, Number(first) * this.pageSize + pageHeader.size, dataSize));
    }
    if (dataAt + dataSize > this.pageSize) return `its value of ${dataSize} bytes runs past the page`;
    if (visit.tree === freeTree) return checkFreeList(page.subarray(dataAt, dataAt + dataSize));
    if ((flags & nodeFlags.subData) !== 0) {
      if (dataSize !== dbLayout.size) return `its sub-db description is ${dataSize} bytes, not ${dbLayout.size}`;
      const name = page
        .subarray(at + nodeLayout.size, dataAt)
        .toString('utf8')
        .replace(/\0$/, '');
      return this.#addTree(`sub-db "${name || String(index)}"`, readTree(page, dataAt));
    }
    return undefined;
  }

  /** An overflow run: lmdb frees and copies as many pages as its first page says, so that count must hold too. */
  #checkOverflow(first: bigint, dataSize: number, tree: string): string | undefined {
    const page = this.#page(first, tree);
    if (typeof page === 'string') return page;
    const flags = page.readUInt16LE(pageHeader.flags) & 0xff;
    if (flags !== pageFlags.overflow || page.readBigUInt64LE(pageHeader.pgno) !== first) return `its overflow page ${first} is not one`;
    const pages = page.readUInt32LE(pageHeader.overflowPages);
    if (pages < overflowPages(dataSize, this.pageSize)) return `its overflow run at page ${first} is shorter than its value`;
    return this.#claim(first + 1n, BigInt(pages - 1), tree);
  }
}

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDataFile } from '../../src/org/checkDataFile.js';
import { dataFile, pageSize, writeStore } from '../support/damagedStore.js';
import { orgHarness } from '../support/orgStoreFixture.js';

const { tempDir } = orgHarness();

/** The offset of the first page (after the meta pages) whose header flags are exactly `flags`. */
function firstPage(data: Buffer, flags: number): number {
  for (let at = 2 * pageSize; at < data.length; at += pageSize) if (data.readUInt16LE(at + 18) === flags) return at;
  throw new Error(`no page with flags ${flags}`);
}

/** The offset of the root page of the main tree (or the free-page tree), from the current meta page (the one with the higher txn id). */
function mainRoot(data: Buffer, tree: 'main' | 'free' = 'main'): number {
  const current = data.readBigUInt64LE(152) >= data.readBigUInt64LE(pageSize + 152) ? 0 : pageSize;
  return Number(data.readBigUInt64LE(current + (tree === 'main' ? 136 : 88))) * pageSize;
}

async function damaged(change: (data: Buffer) => void): Promise<string | undefined> {
  const dir = await tempDir();
  await writeStore(dir, 50);
  const data = await readFile(dataFile(dir));
  change(data);
  await writeFile(dataFile(dir), data);
  return checkDataFile(dataFile(dir));
}

describe('checkDataFile', () => {
  it('finds a store it wrote sound, and an absent file no damage (a new store)', async () => {
    const dir = await tempDir();
    await writeStore(dir, 50);
    expect(checkDataFile(dataFile(dir))).toBeUndefined();
    expect(checkDataFile(join(dir, 'absent.mdb'))).toBeUndefined();
  });

  it('refuses an overflow run whose page count reaches past the pages in use (lmdb would free them all: an endless loop)', async () => {
    const reason = await damaged((data) => data.writeUInt32LE(0x7e7e_7e7e, firstPage(data, 0x04) + 20));
    expect(reason).toMatch(/points to page \d+, outside the pages in use/);
  });

  it('refuses a value whose size has its high word set (read as a negative number, it passed before)', async () => {
    const reason = await damaged((data) => {
      const leaf = mainRoot(data);
      // The node the page's first pointer names: a sub-db's description.
      const node = leaf + 24 + data.readUInt16LE(leaf + 24);
      data.writeUInt16LE(0xdc00, node + 2);
    });
    expect(reason).toMatch(/^page \d+ of the main tree, node 0: its value of 3690987568 bytes runs past the page$/);
  });

  it('refuses a free-page list whose count is more than its record holds (lmdb would copy past it)', async () => {
    const reason = await damaged((data) => {
      const leaf = mainRoot(data, 'free');
      const node = leaf + 24 + data.readUInt16LE(leaf + 24);
      // The value follows the 8-byte node header and the key; an inline list starts with its count.
      data.writeBigUInt64LE(0x7e7e_7e7en, node + 8 + data.readUInt16LE(node + 6));
    });
    expect(reason).toMatch(/^page \d+ of the free-page tree, node 0: its free-page list counts 2122219134 pages in \d+ bytes$/);
  });

  it('refuses two trees that share a page (a garbled root: lmdb would write one over the other)', async () => {
    const reason = await damaged((data) => {
      const leaf = mainRoot(data);
      // The sub-dbs' descriptions (48 bytes after each node's key) whose trees are one leaf deep.
      const roots = Array.from({ length: data.readUInt16LE(leaf + 20) / 2 }, (_, i) => {
        const node = leaf + 24 + data.readUInt16LE(leaf + 24 + 2 * i);
        return node + 8 + data.readUInt16LE(node + 6);
      }).filter((db) => data.readUInt16LE(db + 6) === 1);
      const [first, second] = roots;
      if (first === undefined || second === undefined) throw new Error('fewer than two one-page sub-dbs');
      data.writeBigUInt64LE(data.readBigUInt64LE(first + 40), second + 40);
    });
    expect(reason).toMatch(/^sub-db "\w+" reaches page \d+ twice$/);
  });

  it('refuses a branch or leaf page whose header was overwritten', async () => {
    const reason = await damaged((data) => data.fill(0x7e, mainRoot(data) + 16, mainRoot(data) + 24));
    expect(reason).toMatch(/^page \d+ of the main tree has flags 0x7e, expected a leaf page$/);
  });

  it('refuses a second meta page without its magic number', async () => {
    const reason = await damaged((data) => data.fill(0, pageSize + 24, pageSize + 28));
    expect(reason).toBe('page 1 is not an LMDB meta page (no magic number)');
  });
});

import { readFile, readdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { seededRandom } from '../../src/random.js';

/** LMDB's page size as the store writes it (meta page 0 says so; the damage below assumes it). */
export const pageSize = 4096;

/**
 * Writes an organisation big enough to have branch pages and overflow values: a role with a
 * 10 KB prompt and `agents` agents (ids `a0`, `a1`, …), then closes the store.
 */
export async function writeStore(dir: string, agents = 600): Promise<void> {
  const store = await openOrgStore({ dir, logger: new MemoryLogger(), clock: new SimulatedClock(1_000) });
  await store.createRole({ id: 'r', name: 'poet', prompt: 'p'.repeat(10_000), createdBy: 'user' });
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < agents; i++) writes.push(store.createAgent({ id: `a${i}`, roleId: 'r', parentAgentId: null }));
  await Promise.all(writes);
  await store.close();
}

export const dataFile = (dir: string): string => join(dir, 'data.mdb');

/** Cuts the data file to `fraction` of its size. */
export async function truncateData(dir: string, fraction: number): Promise<void> {
  const bytes = (await readFile(dataFile(dir))).length;
  await truncate(dataFile(dir), Math.floor(bytes * fraction));
}

/** Overwrites everything after the page header's first 16 bytes of the pages in the middle third of the file with `byte`. */
export async function garbleMiddlePages(dir: string, byte = 0x7e): Promise<void> {
  const data = await readFile(dataFile(dir));
  const pages = data.length / pageSize;
  for (let page = Math.floor(pages / 3); page < Math.floor((2 * pages) / 3); page++) data.fill(byte, page * pageSize + 16, (page + 1) * pageSize);
  await writeFile(dataFile(dir), data);
}

/** Changes `count` bytes at seeded random places of pages 2 and on (never the meta pages), a different file for each seed. */
export async function garbleRandomBytes(dir: string, seed: number, count: number): Promise<void> {
  const random = seededRandom(seed);
  const data = await readFile(dataFile(dir));
  for (let i = 0; i < count; i++) data[2 * pageSize + Math.floor(random() * (data.length - 2 * pageSize))] = Math.floor(random() * 256);
  await writeFile(dataFile(dir), data);
}

/** The `damaged-…` folders a damaged store was moved into. */
export async function damagedFolders(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('damaged-')).sort();
}

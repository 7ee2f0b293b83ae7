import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/errors.js';
import { openOrgStore } from '../../src/org/index.js';
import { damagedFolders, dataFile, garbleMiddlePages, pageSize, truncateData, writeStore } from '../support/damagedStore.js';
import { orgHarness } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

/** Opens a damaged store and checks what a damaged store must give: empty, its files moved aside, one error naming the folder. */
async function expectSetAside(dir: string, reason: RegExp): Promise<void> {
  const before = await readFile(dataFile(dir));
  const { store, logger } = await openTestStore(dir);
  expect(store.agents()).toEqual([]);
  expect(store.roles()).toEqual([]);
  const [folder, ...others] = await damagedFolders(dir);
  expect(others).toEqual([]);
  expect(folder).toMatch(/^damaged-\d{4}-\d\d-\d\dT/);
  // Nothing is lost: the damaged file is there, byte for byte.
  expect(await readFile(join(dir, folder ?? '', 'data.mdb'))).toEqual(before);
  const errors = logger.entries.filter((entry) => entry.level === 'error');
  expect(errors).toHaveLength(1);
  expect(errors[0]?.fields).toMatchObject({ dir, movedTo: join(dir, folder ?? ''), reason: expect.stringMatching(reason) as unknown });
  // The fresh store works and keeps what it is given.
  await store.createRole({ id: 'r2', name: 'critic', prompt: 'Judge.', createdBy: 'user' });
  await store.close();
  const { store: reopened, logger: quiet } = await openTestStore(dir);
  expect(reopened.roles().map((role) => role.name)).toEqual(['critic']);
  expect(quiet.entries.filter((entry) => entry.level === 'error')).toEqual([]);
}

describe('org store: a damaged data file', () => {
  it('opens a sound store with its records, with no error and nothing moved', async () => {
    const dir = await tempDir();
    await writeStore(dir);
    const { store, logger } = await openTestStore(dir);
    expect(store.agents()).toHaveLength(600);
    expect(store.role('r')?.prompt).toHaveLength(10_000);
    expect(await damagedFolders(dir)).toEqual([]);
    expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('sets a truncated file aside and starts empty (lmdb would die of SIGBUS mapping it)', async () => {
    const dir = await tempDir();
    await writeStore(dir);
    await truncateData(dir, 0.5);
    await expectSetAside(dir, /data\.mdb: .*beyond the end of the file.*truncated/);
  });

  it('sets a file cut inside its meta pages aside', async () => {
    const dir = await tempDir();
    await writeStore(dir);
    await truncateData(dir, (pageSize + 100) / (await readFile(dataFile(dir))).length);
    await expectSetAside(dir, /shorter than its two meta pages/);
  });

  it('sets a 0-byte data file aside with an error, instead of starting empty without a word', async () => {
    const dir = await tempDir();
    await writeStore(dir);
    await writeFile(dataFile(dir), '');
    await expectSetAside(dir, /the file is empty \(0 bytes\)/);
  });

  it('sets a file with garbled pages in the middle aside (lmdb would crash or fail most reads)', async () => {
    const dir = await tempDir();
    await writeStore(dir);
    await garbleMiddlePages(dir);
    await expectSetAside(dir, /data\.mdb: page \d+ of /);
  });

  it('sets a file whose meta page lost its magic number aside', async () => {
    const dir = await tempDir();
    await writeStore(dir);
    const data = await readFile(dataFile(dir));
    data.fill(0, 24, 28);
    await writeFile(dataFile(dir), data);
    await expectSetAside(dir, /page 0 is not an LMDB meta page/);
  });

  it('sets aside a store lmdb can map but not read through (a key that does not decode)', async () => {
    const dir = await tempDir();
    await writeStore(dir, 10);
    const raw = open({ path: dir, noSubdir: false, maxDbs: 20 });
    // A key the store's ordered-binary encoding cannot decode (a number that is no integer, read as a BigInt).
    const garbledKey = Buffer.from('1054f6d2d6acce3ca2d4dd', 'hex');
    await raw.openDB({ name: 'roles', keyEncoding: 'binary', encoding: 'binary' }).put(garbledKey, Buffer.from('x'));
    await raw.close();
    await expectSetAside(dir, /reading it failed: /);
  });

  it("with onDamage: 'refuse', rejects with store_damaged naming the dir and the damage, and leaves the files alone", async () => {
    const dir = await tempDir();
    await writeStore(dir);
    await truncateData(dir, 0.5);
    const before = await readFile(dataFile(dir));
    const opening = openOrgStore({ dir, onDamage: 'refuse' });
    await expect(opening).rejects.toBeInstanceOf(TroupeError);
    await expect(opening).rejects.toMatchObject({
      code: 'store_damaged',
      message: expect.stringContaining(`the org store in ${dir} is damaged: data.mdb: `) as unknown,
    });
    expect(await readFile(dataFile(dir))).toEqual(before);
    expect(await damagedFolders(dir)).toEqual([]);
  });

  it('names a second damaged store of the same moment apart from the first', async () => {
    const dir = await tempDir();
    for (let round = 0; round < 2; round++) {
      await writeStore(dir, 10);
      await writeFile(dataFile(dir), '');
      const { store } = await openTestStore(dir);
      await store.close();
    }
    // The store's clock is simulated: both moves happen at the same instant.
    const folders = await damagedFolders(dir);
    expect(folders).toHaveLength(2);
    expect(folders[1]).toBe(`${folders[0] ?? ''}-2`);
  });

  it('refuses a dir that is a file, as bad input naming it', async () => {
    const dir = await tempDir();
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'x');
    await expect(openOrgStore({ dir: file })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining(`${file} is not a directory`) as unknown,
    });
    await expect(openOrgStore({ dir: join(file, 'below') })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

import { describe, expect, it } from 'vitest';
import { type Migrations, currentSchemaVersion } from '../../src/org/index.js';
import { openRaw, orgHarness } from '../support/orgStoreFixture.js';

const { tempDir, openTestStore } = orgHarness();

/** A store as a pre-versioned troupe (schema 0) would have left it: roles without `v`. */
async function writeVersion0(dir: string, meta: boolean): Promise<void> {
  const root = openRaw(dir);
  const roles = root.openDB({ name: 'roles' });
  root.transactionSync(() => {
    if (meta) root.openDB({ name: 'meta' }).putSync('meta', { v: 1, schemaVersion: 0 });
    roles.putSync('r0', { id: 'r0', name: 'old', prompt: 'p', createdBy: 'user', createdAt: 1 });
  });
  await root.close();
}

/** Version 0 → 1: every role gains its record version. */
const addRoleVersion: Migrations = {
  1: (txn) => {
    for (const { key, value } of txn.entries('roles')) txn.put('roles', key, { ...(value as object), v: 1 });
  },
};

describe('org store: schema migrations', () => {
  it('runs the registered hook on a store at schema version 0', async () => {
    const dir = await tempDir();
    await writeVersion0(dir, true);
    const seen: number[] = [];
    const { store, logger } = await openTestStore(dir, {
      migrations: { 1: (txn) => (seen.push(txn.from), addRoleVersion[1]?.(txn)) },
    });
    expect(seen).toEqual([0]);
    expect(store.roles()).toEqual([{ v: 1, id: 'r0', name: 'old', prompt: 'p', createdBy: 'user', createdAt: 1 }]);
    expect(store.quarantined()).toEqual([]);
    expect(logger.entries).toContainEqual({ level: 'info', message: 'org store migrated', fields: { from: 0, to: 1 } });
    await store.close();

    // Migrated once: the next open runs no hook.
    const { store: again } = await openTestStore(dir, { migrations: { 1: () => seen.push(-1) } });
    expect(seen).toEqual([0]);
    expect(again.roles()).toHaveLength(1);
  });

  it('treats records without a meta record as schema version 0', async () => {
    const dir = await tempDir();
    await writeVersion0(dir, false);
    const { store } = await openTestStore(dir, { migrations: addRoleVersion });
    expect(store.roles().map((role) => role.v)).toEqual([1]);
  });

  it('runs hooks in order up to the target version, all or nothing', async () => {
    const dir = await tempDir();
    await writeVersion0(dir, true);
    const order: number[] = [];
    const failing: Migrations = {
      1: (txn) => (order.push(1), addRoleVersion[1]?.(txn)),
      2: () => {
        order.push(2);
        throw new Error('bad hook');
      },
    };
    await expect(openTestStore(dir, { migrations: failing, schemaVersion: 2 })).rejects.toMatchObject({ code: 'internal' });
    expect(order).toEqual([1, 2]);
    // Nothing of the failed run stuck: the store is still at version 0 and migrates cleanly.
    const { store } = await openTestStore(dir, { migrations: { ...failing, 2: () => order.push(22) }, schemaVersion: 2 });
    expect(order).toEqual([1, 2, 1, 22]);
    expect(store.roles().map((role) => role.v)).toEqual([1]);
  });

  it('refuses a store newer than this troupe, and a missing migration', async () => {
    const dir = await tempDir();
    const { store } = await openTestStore(dir, { schemaVersion: currentSchemaVersion + 1 });
    await store.close();
    await expect(openTestStore(dir)).rejects.toThrow(/newer than/);
    const old = await tempDir();
    await writeVersion0(old, true);
    await expect(openTestStore(old)).rejects.toThrow(/no migration from schema version 0 to 1/);
  });
});

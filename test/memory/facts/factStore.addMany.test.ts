import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/errors.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';

// FactStore.addMany and remove (issue 33, point 1): many facts at once, in order, merged or not;
// the vectors of facts stored unmerged go into the index in the background, and until then every
// search compares with them directly, so nothing stored is ever missing from a search.

const { place, openStore, reopenEnv } = factHarness();

const turn = (i: number) => ({ fact: fact(`Turn ${i}: we talked about harbour ${i} and the ferry to island ${i * 7}.`, { sessionId: null }), merge: false });

describe('FactStore.addMany', () => {
  it('finds a fact the moment addMany resolves, before its vector is in the index, and after it is', async () => {
    const at = await place();
    const { store } = await openStore(at);
    await store.addMany(Array.from({ length: 600 }, (_, i) => turn(i)));
    // Nothing was awaited since the import: vectors still wait for the index.
    expect(store.unindexed).toBeGreaterThan(0);
    const [hit] = await store.search('harbour 599 ferry island 4193', 1, { sessionId: null });
    expect(hit?.fact.text).toContain('Turn 599:');
    await store.flush();
    expect(store.unindexed).toBe(0);
    const [again] = await store.search('harbour 599 ferry island 4193', 1, { sessionId: null });
    expect(again?.fact.id).toBe(hit?.fact.id);
    await store.close();

    const { store: reopened } = await openStore(await reopenEnv(at));
    expect(reopened.size).toBe(600);
    const [found] = await reopened.search('harbour 12 and the ferry to island 84', 1, { sessionId: null });
    expect(found?.fact.text).toContain('Turn 12:');
  });

  it('merges a fact into a close one held before the import or of an earlier import, or the same text earlier in it, and never a turn', async () => {
    const { store } = await openStore(await place());
    const held = await store.add(fact('The office is in Lisbon.', { sessionId: null }));
    const invoices = 'Invoices go out on the first day of the month.';
    const added = await store.addMany([
      { fact: fact('The office is in Lisbon!', { sessionId: null }), merge: true },
      { fact: fact(invoices, { sessionId: null }), merge: true },
      { fact: fact(` invoices go out on the FIRST day of the month. `, { sessionId: null }), merge: true },
      { fact: fact('The office is in Lisbon.', { sessionId: null }), merge: false },
    ]);
    expect(added.map((one) => one.merged)).toEqual([true, false, true, false]);
    expect(added[0]?.fact.id).toBe(held.fact.id);
    expect(added[2]?.fact.id).toBe(added[1]?.fact.id);
    // The next import waits for this one's vectors to reach the index, and is compared with them.
    const [next] = await store.addMany([{ fact: fact(`${invoices}!`, { sessionId: null }), merge: true }]);
    expect(next?.fact.id).toBe(added[1]?.fact.id);
    expect(store.size).toBe(3);
  });

  it('refuses a bad fact naming its index, and more than compressAbove allows, storing nothing', async () => {
    const { store } = await openStore(await place(), { limits: { compressAbove: 5, keepTopN: 4 } });
    const bad = await store.addMany([turn(0), { fact: { ...fact('ok'), importance: 3 }, merge: true }]).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).field).toBe('facts[1].importance');
    const full = await store.addMany(Array.from({ length: 6 }, (_, i) => turn(i))).catch((error: unknown) => error);
    expect(String(full)).toMatch(/past compressAbove \(5\)/);
    expect(store.size).toBe(0);
  });
});

describe('FactStore.remove', () => {
  it('removes facts whether their vectors are in the index yet or not, and says which it held', async () => {
    const at = await place();
    const { store } = await openStore(at);
    const added = await store.addMany(Array.from({ length: 300 }, (_, i) => turn(i)));
    const [first, last] = [added[0]?.fact.id ?? '', added[299]?.fact.id ?? ''];
    expect(await store.remove([first, last, 'f9999'])).toEqual([first, last]);
    expect(await store.search('harbour 299 ferry island 2093', 3, { sessionId: null })).not.toContainEqual(
      expect.objectContaining({ fact: expect.objectContaining({ id: last }) as unknown }),
    );
    await store.close();
    const { store: reopened } = await openStore(await reopenEnv(at));
    expect(reopened.size).toBe(298);
    expect(reopened.list().map((one) => one.id)).not.toContain(first);
  });
});

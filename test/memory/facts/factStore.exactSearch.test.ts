import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import type { FactStore } from '../../../src/memory/facts/factStore.js';
import { processArgs, transpiledPath } from '../../support/cliProcess.js';
import { type FactPlace, fact, factHarness } from '../../support/factStoreFixture.js';
import { itWithHnswlib } from '../../support/hnswlibTests.js';

// Without hnswlib-node (no C++ compiler built it, or npm 11 skipped its build) L4 searches by
// comparing the query with every vector: the same answers, no index file, one warning naming
// the fix. `exactSearch` asks for the same on a machine that has hnswlib.

const { place, openStore, reopenEnv } = factHarness();
const root = fileURLToPath(new URL('../../..', import.meta.url));

const sentences = [
  'The user prefers dark mode in the editor.',
  'Alice lives in Lisbon and works as a nurse.',
  'The deployment failed because the database password expired.',
  'The staging server listens on port 8080.',
  'Bob likes hiking in the mountains on weekends.',
  'The build uses TypeScript and runs on Node 20.',
];
const queries = ['what theme does the user like', 'where does Alice live', 'why did the deploy fail', 'which port does staging use'];

async function filled(at: FactPlace, exactSearch: boolean): Promise<FactStore> {
  const { store } = await openStore(at, { limits: { exactSearch } });
  for (const [i, text] of sentences.entries()) await store.add(fact(text, i % 3 === 0 ? { sessionId: null } : {}));
  return store;
}

/** Each query's hits: ids in order, and their similarities. */
async function answers(store: FactStore): Promise<{ ids: string[]; similarities: number[] }[]> {
  const found = [];
  for (const query of queries) {
    const hits = await store.search(query, 3, { sessionId: 's1' });
    found.push({ ids: hits.map((hit) => hit.fact.id), similarities: hits.map((hit) => hit.similarity) });
  }
  return found;
}

function expectSameAnswers(actual: Awaited<ReturnType<typeof answers>>, expected: Awaited<ReturnType<typeof answers>>): void {
  expect(actual.map((answer) => answer.ids)).toEqual(expected.map((answer) => answer.ids));
  for (const [i, answer] of actual.entries()) {
    for (const [j, similarity] of answer.similarities.entries()) expect(similarity).toBeCloseTo(expected[i]?.similarities[j] ?? Number.NaN, 5);
  }
}

/** What `test/support/factSearchUse.ts` printed, run in a process whose packages are swapped as `swapped` says (see swappedPackages.ts). */
async function factSearchUse(swapped: Record<string, string | null>): Promise<{ hits: string[][]; warnings: string[] }> {
  const args = ['--import', `./${transpiledPath('test/support/swappedPackages.ts')}`, ...processArgs('test/support/factSearchUse.ts')];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: root, env: { ...process.env, SWAPPED_PACKAGES: JSON.stringify(swapped) } });
  return JSON.parse(stdout) as { hits: string[][]; warnings: string[] };
}

describe('L4 with exact search', () => {
  itWithHnswlib('finds what hnswlib finds, keeps no index file, and finds it again after a reopen', async () => {
    const graphPlace = await place();
    const exactPlace = await place();
    const graph = await filled(graphPlace, false);
    const exact = await filled(exactPlace, true);
    const expected = await answers(graph);
    expect(expected[0]?.ids[0]).toBe('f0');
    expectSameAnswers(await answers(exact), expected);
    await Promise.all([graph.close(), exact.close()]);
    // hnswlib's store saved its index; the exact one had nothing to save.
    expect(await readdir(graphPlace.indexDir)).toHaveLength(2);
    await expect(readdir(exactPlace.indexDir)).rejects.toMatchObject({ code: 'ENOENT' });

    const { store: reopened, logger } = await openStore(await reopenEnv(exactPlace), { limits: { exactSearch: true } });
    expect(reopened.size).toBe(sentences.length);
    expectSameAnswers(await answers(reopened), expected);
    expect(logger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  itWithHnswlib('is what L4 does when hnswlib-node cannot be loaded, with one warning that names the fix', async () => {
    const withHnswlib = await factSearchUse({});
    const without = await factSearchUse({ 'hnswlib-node': null });
    expect(withHnswlib.warnings).toEqual([]);
    expect(without.hits).toEqual(withHnswlib.hits);
    // Two stores on one logger: it hears of it once.
    expect(without.warnings).toHaveLength(1);
    expect(without.warnings[0]).toMatch(
      /hnswlib-node did not load.*exact.*C\+\+ compiler.*"allowScripts": \{ "hnswlib-node": true \}.*npm rebuild hnswlib-node/,
    );
  });
});

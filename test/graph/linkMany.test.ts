import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { type EdgeType, GraphRuleError, type Link, type LinkOutcome } from '../../src/graph/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { graphHarness, snapshotOf, testGraph } from './graphFixture.js';
import { expectGraphLaws } from './graphInvariants.js';
import { apply, id, isRefusal, opsArb, types } from './graphOperations.js';

// `linkMany`: a batch of links has the outcome of the same links made one `link` at a time, a
// refused one leaving no trace; the accepted ones reach LMDB together.

const { openEnv } = graphHarness();

/**
 * What an outcome says, comparable across graphs: the edge, or the refusal's class, rule or field,
 * and message. A bad field of a single link is named as the batch names it: under `links[i]`.
 */
function summary(outcome: LinkOutcome, batchIndex?: number): unknown {
  if (outcome.ok) return { edge: outcome.edge };
  const { error } = outcome;
  if (error instanceof GraphRuleError) return { refused: error.name, rule: error.rule, message: error.message };
  const under = batchIndex === undefined ? '' : `links[${batchIndex}].`;
  return { refused: error.name, field: `${under}${error.field}`, message: `${under}${error.message}` };
}

/** The outcome of one `link`, as `linkMany` reports it. */
async function single(link: Promise<unknown>): Promise<LinkOutcome> {
  return link.then(
    (edge) => ({ ok: true, edge }) as LinkOutcome,
    (error: unknown) => {
      if (isRefusal(error)) return { ok: false, error };
      throw error;
    },
  );
}

// Links among the ids of the operations, now and then with a type no graph knows (a bad field).
const linkArb: fc.Arbitrary<Link> = fc
  .record({ from: id, to: id, type: fc.constantFrom<EdgeType | 'bogus'>(...types, 'bogus'), weight: fc.integer({ min: 1, max: 5 }) })
  .map(({ from, to, type, weight }) => ({ from: `n${from}`, to: `n${to}`, type: type as EdgeType, weight }));

describe('graph memory: linkMany', () => {
  it('equals the same links made one at a time, in outcome and in the graph, and reads back the same', async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, fc.array(linkArb, { minLength: 1, maxLength: 30 }), async (ops, links) => {
        const { db } = await openEnv();
        const { memory: batched } = await testGraph(db);
        const { memory: one } = await testGraph(null);
        for (const op of ops) {
          await apply(batched, op);
          await apply(one, op);
        }
        const outcomes = await batched.linkMany(links);
        const singles: LinkOutcome[] = [];
        for (const link of links) singles.push(await single(one.link(link)));
        expect(outcomes.map((outcome) => summary(outcome))).toEqual(singles.map((outcome, i) => summary(outcome, i)));
        expect(snapshotOf(batched.graph)).toEqual(snapshotOf(one.graph));
        expectGraphLaws(batched.graph);
        const { memory: reopened, logger } = await testGraph(db);
        expect(snapshotOf(reopened.graph)).toEqual(snapshotOf(batched.graph));
        expect(logger.entries).toEqual([]);
      }),
      loggedSeed('graph linkMany', 100),
    );
  });

  it('checks each link against the ones before it in the batch: a duplicate, a cycle and a second parent made within it are refused', async () => {
    const { db } = await openEnv();
    const { memory } = await testGraph(db);
    for (const node of ['a', 'b', 'c']) await memory.addEvent({ id: node, content: node });
    await memory.addNote({ id: 'n', content: 'n' });
    const outcomes = await memory.linkMany([
      { from: 'a', to: 'b', type: 'depends_on' },
      { from: 'b', to: 'c', type: 'depends_on' },
      { from: 'c', to: 'a', type: 'depends_on' },
      { from: 'a', to: 'b', type: 'depends_on' },
      { from: 'a', to: 'c', type: 'part_of' },
      { from: 'a', to: 'b', type: 'part_of' },
      { from: 'a', to: 'n', type: 'nonsense' as EdgeType },
      { from: 'a', to: 'ghost', type: 'references' },
      { from: 'a', to: 'n', type: 'references', weight: 2 },
    ]);
    expect(outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.error instanceof GraphRuleError ? outcome.error.rule : 'invalid'))).toEqual([
      'ok',
      'ok',
      'cycle',
      'duplicate_edge',
      'ok',
      'second_parent',
      'invalid',
      'unknown_node',
      'ok',
    ]);
    const invalid = outcomes[6];
    expect(invalid?.ok === false && invalid.error instanceof ValidationError ? invalid.error.field : undefined).toBe('links[6].type');
    expect(invalid?.ok === false ? invalid.error.message : '').toMatch(/^links\[6\]\.type: /);
    expect(outcomes[2]?.ok === false ? outcomes[2].error.context['cycle'] : undefined).toEqual(['c', 'a', 'b', 'c']);
    expect(memory.graph.edgeCount).toBe(4);
    const { memory: reopened } = await testGraph(db);
    expect(snapshotOf(reopened.graph)).toEqual(snapshotOf(memory.graph));
  });

  it('refuses a batch over maxLinksPerBatch, or not an array, whole and naming why, changing nothing', async () => {
    const { memory } = await testGraph(null, { limits: { maxLinksPerBatch: 2 } });
    for (const node of ['a', 'b', 'c']) await memory.addNote({ id: node, content: node });
    const links: Link[] = [
      { from: 'a', to: 'b', type: 'references' },
      { from: 'b', to: 'c', type: 'references' },
      { from: 'c', to: 'a', type: 'references' },
    ];
    const before = snapshotOf(memory.graph);
    const tooMany: unknown = await memory.linkMany(links).catch((error: unknown) => error);
    expect(tooMany).toBeInstanceOf(ValidationError);
    expect((tooMany as ValidationError).field).toBe('links');
    expect((tooMany as ValidationError).message).toContain('maxLinksPerBatch (2)');
    const notArray: unknown = await memory.linkMany({ from: 'a' } as never).catch((error: unknown) => error);
    expect((notArray as ValidationError).field).toBe('links');
    expect(snapshotOf(memory.graph)).toEqual(before);
    expect((await memory.linkMany(links.slice(0, 2))).every((outcome) => outcome.ok)).toBe(true);
    await expect(testGraph(null, { limits: { maxLinksPerBatch: 0 } })).rejects.toThrow(/limits\.maxLinksPerBatch/);
  });

  it('a fault in the middle of a batch (not a refusal) takes back the links it had added, and writes nothing', async () => {
    // A clock that breaks on its sixth reading: after three nodes, the third link of the batch.
    class BreakingClock extends SimulatedClock {
      #readings = 0;
      override now(): number {
        this.#readings += 1;
        if (this.#readings === 6) throw new Error('the clock broke');
        return super.now();
      }
    }
    const { db } = await openEnv();
    const { memory } = await testGraph(db, { clock: new BreakingClock(1_000) });
    await memory.addNote({ id: 'a', content: 'a' });
    await memory.addNote({ id: 'b', content: 'b' });
    await memory.addNote({ id: 'c', content: 'c' });
    const before = snapshotOf(memory.graph);
    const batch: Link[] = [
      { from: 'a', to: 'b', type: 'references' },
      { from: 'b', to: 'a', type: 'references' },
      { from: 'a', to: 'c', type: 'references' },
    ];
    await expect(memory.linkMany(batch)).rejects.toThrow('the clock broke');
    expect(snapshotOf(memory.graph)).toEqual(before);
    await memory.flushed();
    const { memory: reopened } = await testGraph(db);
    expect(reopened.graph.edgeCount).toBe(0);
  });
});

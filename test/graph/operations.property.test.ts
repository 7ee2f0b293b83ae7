import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { type EdgeType, type EventStatus, type GraphMemory, GraphRuleError, type ReadonlyGraph, edgeAllowed } from '../../src/graph/index.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { graphHarness, snapshotOf, testGraph } from './graphFixture.js';
import { expectGraphLaws, reachable } from './graphInvariants.js';

// Seed 002's laws under any sequence of changes, refused ones included: depends_on stays a DAG,
// part_of a forest, every edge allowed by the matrix; a refused change leaves the graph exactly
// as it was; a topological order respects every dependency; and what is stored reads back the same.

const types: readonly EdgeType[] = ['depends_on', 'part_of', 'references', 'produces'];
const statuses: readonly EventStatus[] = ['pending', 'in_progress', 'done', 'archived'];

type Op =
  | { readonly op: 'addEvent'; readonly id: number; readonly status: EventStatus }
  | { readonly op: 'addNote'; readonly id: number }
  | { readonly op: 'remove'; readonly id: number }
  | { readonly op: 'status'; readonly id: number; readonly status: EventStatus }
  | { readonly op: 'link'; readonly from: number; readonly to: number; readonly type: EdgeType; readonly weight: number }
  | { readonly op: 'unlink'; readonly from: number; readonly to: number; readonly type: EdgeType };

// A small pool of ids, so duplicates, unknown nodes, cycles and second parents all happen often.
const id = fc.nat(4);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('addEvent' as const), id, status: fc.constantFrom(...statuses) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('addNote' as const), id }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('remove' as const), id }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('status' as const), id, status: fc.constantFrom(...statuses) }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('link' as const), from: id, to: id, type: fc.constantFrom(...types), weight: fc.integer({ min: 1, max: 5 }) }),
    weight: 8,
  },
  { arbitrary: fc.record({ op: fc.constant('unlink' as const), from: id, to: id, type: fc.constantFrom(...types) }), weight: 2 },
);
const addArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('addEvent' as const), id, status: fc.constantFrom(...statuses) }),
  fc.record({ op: fc.constant('addNote' as const), id }),
);
// A few nodes first, so most runs reach states where every rule can bite (a second parent, a cycle).
const opsArb = fc
  .tuple(fc.array(addArb, { minLength: 3, maxLength: 6 }), fc.array(opArb, { minLength: 10, maxLength: 80, size: 'medium' }))
  .map(([adds, ops]) => [...adds, ...ops]);

/** Whether the graph must refuse `op`, worked out here from the seed's rules, not by the graph's own code. */
function mustRefuse(graph: ReadonlyGraph, op: Op): boolean {
  switch (op.op) {
    case 'addEvent':
    case 'addNote':
      return graph.node(`n${op.id}`) !== undefined;
    case 'remove':
      return graph.node(`n${op.id}`) === undefined;
    case 'status':
      return graph.node(`n${op.id}`)?.kind !== 'event';
    case 'link': {
      const [from, to] = [graph.node(`n${op.from}`), graph.node(`n${op.to}`)];
      if (from === undefined || to === undefined || from.id === to.id || !edgeAllowed(from.kind, to.kind, op.type)) return true;
      if (graph.edge({ from: from.id, to: to.id, type: op.type }) !== undefined) return true;
      if (op.type === 'part_of' && graph.outEdges(from.id, 'part_of').length > 0) return true;
      return (op.type === 'depends_on' || op.type === 'part_of') && reachable(graph, to.id, from.id, op.type);
    }
    case 'unlink':
      return graph.edge({ from: `n${op.from}`, to: `n${op.to}`, type: op.type }) === undefined;
    default:
      return op satisfies never;
  }
}

/** Applies `op`; true when the graph accepted it. */
async function apply(memory: GraphMemory, op: Op): Promise<boolean> {
  const done = (promise: Promise<unknown>): Promise<boolean> =>
    promise.then(
      () => true,
      (error: unknown) => {
        if (error instanceof GraphRuleError || error instanceof ValidationError) return false;
        throw error;
      },
    );
  switch (op.op) {
    case 'addEvent':
      return done(memory.addEvent({ id: `n${op.id}`, content: `event ${op.id}`, status: op.status }));
    case 'addNote':
      return done(memory.addNote({ id: `n${op.id}`, content: `note ${op.id}` }));
    case 'remove':
      return done(memory.removeNode(`n${op.id}`));
    case 'status':
      return done(memory.updateNode(`n${op.id}`, { status: op.status }));
    case 'link':
      return done(memory.link({ from: `n${op.from}`, to: `n${op.to}`, type: op.type, weight: op.weight }));
    case 'unlink':
      return done(memory.unlink({ from: `n${op.from}`, to: `n${op.to}`, type: op.type }));
    default:
      return op satisfies never;
  }
}

const { openEnv } = graphHarness();

describe('graph memory: laws under any sequence of changes', () => {
  it('keeps depends_on acyclic, part_of a forest and the matrix; refuses exactly what the rules forbid, changing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, async (ops) => {
        const { memory } = await testGraph(null);
        for (const op of ops) {
          const before = snapshotOf(memory.graph);
          const refuse = mustRefuse(memory.graph, op);
          const accepted = await apply(memory, op);
          expect(accepted, JSON.stringify(op)).toBe(!refuse);
          if (!accepted) expect(snapshotOf(memory.graph)).toEqual(before);
          expectGraphLaws(memory.graph);
        }
      }),
      loggedSeed('graph laws', 200),
    );
  });

  it('reads back from LMDB as the same graph after any sequence of changes', async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, async (ops) => {
        const { db } = await openEnv();
        const { memory } = await testGraph(db);
        for (const op of ops) await apply(memory, op);
        await memory.flushed();
        const { memory: reopened, logger } = await testGraph(db);
        expect(snapshotOf(reopened.graph)).toEqual(snapshotOf(memory.graph));
        expect(logger.entries).toEqual([]);
      }),
      loggedSeed('graph reopen', 100),
    );
  });
});

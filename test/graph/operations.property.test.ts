import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ReadonlyGraph, edgeAllowed } from '../../src/graph/index.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { graphHarness, snapshotOf, testGraph } from './graphFixture.js';
import { expectGraphLaws, reachable } from './graphInvariants.js';
import { type Op, apply, opsArb } from './graphOperations.js';

// Seed 002's laws under any sequence of changes, refused ones included: depends_on stays a DAG,
// part_of a forest, every edge allowed by the matrix; a refused change leaves the graph exactly
// as it was; a topological order respects every dependency; and what is stored reads back the same.

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
    // 200 sequences with a snapshot per change: seconds alone, several times that on a loaded machine.
  }, 120_000);

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
  }, 120_000);
});

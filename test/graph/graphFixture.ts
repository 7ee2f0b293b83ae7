import { join } from 'node:path';
import { type RootDatabase, open } from 'lmdb';
import { type GraphMemory, type GraphMemoryOptions, type ReadonlyGraph, openGraphMemory } from '../../src/graph/index.js';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { cleanupAfterEach, tempDirsAfterEach } from '../support/cleanupAfterEach.js';

/** Opens LMDB environments in temp dirs, closed and removed after each test. */
export function graphHarness(): { openEnv: (dir?: string) => Promise<{ db: RootDatabase; dir: string }>; tempDir: () => Promise<string> } {
  const tempDir = tempDirsAfterEach('troupe-graph-');
  const later = cleanupAfterEach();
  return {
    tempDir,
    openEnv: async (given) => {
      const dir = given ?? (await tempDir());
      const db = open({ path: join(dir, 'env'), noSubdir: false, maxDbs: 8 });
      later(() => db.close());
      return { db, dir };
    },
  };
}

/** A graph memory on a simulated clock with sequential ids (`t1`, `t2`, …), logging to memory. */
export async function testGraph(db: RootDatabase | null, options: Partial<GraphMemoryOptions> = {}): Promise<{ memory: GraphMemory; logger: MemoryLogger }> {
  const logger = new MemoryLogger();
  const memory = await openGraphMemory({ db, ownerId: 'agent-1', logger, clock: new SimulatedClock(1_000), ids: sequentialIds(), ...options });
  return { memory, logger };
}

/** Everything a graph holds, in a canonical order: two graphs are the same exactly when their snapshots are equal. */
export function snapshotOf(graph: ReadonlyGraph): { counts: number[]; nodes: unknown[]; edges: unknown[]; out: unknown[]; in: unknown[] } {
  const nodes = [...graph.nodes()].sort((a, b) => a.id.localeCompare(b.id));
  const key = (e: { from: string; to: string; type: string }): string => `${e.from} ${e.type} ${e.to}`;
  const edges = [...graph.edges()].sort((a, b) => key(a).localeCompare(key(b)));
  const types = ['depends_on', 'part_of', 'references', 'produces'] as const;
  // The adjacency both ways, so an index left out of step with the edges shows too.
  const out = nodes.flatMap((node) => types.map((type) => graph.outEdges(node.id, type).map(key).sort()));
  const into = nodes.flatMap((node) => types.map((type) => graph.inEdges(node.id, type).map(key).sort()));
  return { counts: [graph.nodeCount, graph.edgeCount], nodes: structuredClone(nodes), edges: structuredClone(edges), out, in: into };
}

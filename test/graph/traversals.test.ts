import { describe, expect, it } from 'vitest';
import {
  type GraphMemory,
  blockersOf,
  contextNotesOf,
  isBlocked,
  neighbourhood,
  parentTaskOf,
  rankNeighbourhood,
  referencingEvents,
  subtasksOf,
  topologicalOrder,
} from '../../src/graph/index.js';
import { testGraph } from './graphFixture.js';

const ids = (nodes: readonly { id: string }[]): string[] => nodes.map((node) => node.id);

/**
 * A release: `ship` depends on `test`, which depends on `build` (done) and `docs`; `build`
 * depends on `fetch` (pending). `test` and `docs` are part of `ship`; `old` (archived) too.
 * `ship` references the note `plan`, which references `notes`; `old` references `plan` too.
 */
async function release(): Promise<GraphMemory> {
  const { memory } = await testGraph(null);
  await memory.addEvent({ id: 'ship', content: 'ship it', priority: 1 });
  await memory.addEvent({ id: 'test', content: 'test it', status: 'in_progress' });
  await memory.addEvent({ id: 'build', content: 'build it', status: 'done' });
  await memory.addEvent({ id: 'docs', content: 'write docs', priority: 5 });
  await memory.addEvent({ id: 'fetch', content: 'fetch sources' });
  await memory.addEvent({ id: 'old', content: 'an old plan', status: 'archived' });
  await memory.addNote({ id: 'plan', content: 'the plan', title: 'Plan' });
  await memory.addNote({ id: 'notes', content: 'background' });
  const links = [
    ['ship', 'test', 'depends_on'],
    ['test', 'build', 'depends_on'],
    ['test', 'docs', 'depends_on'],
    ['build', 'fetch', 'depends_on'],
    ['test', 'ship', 'part_of'],
    ['docs', 'ship', 'part_of'],
    ['old', 'ship', 'part_of'],
    ['ship', 'plan', 'references'],
    ['plan', 'notes', 'references'],
    ['old', 'plan', 'references'],
  ] as const;
  for (const [from, to, type] of links) await memory.link({ from, to, type });
  return memory;
}

describe('graph memory: traversals', () => {
  it('blockers are the unfinished events an event depends on, directly or not, nearest first', async () => {
    const memory = await release();
    expect(ids(blockersOf(memory.graph, 'ship'))).toEqual(['test', 'docs', 'fetch']);
    expect(ids(blockersOf(memory.graph, 'build'))).toEqual(['fetch']);
    await memory.updateNode('fetch', { status: 'done' });
    await memory.updateNode('docs', { status: 'archived' });
    expect(ids(blockersOf(memory.graph, 'test'))).toEqual([]);
    expect(isBlocked(memory.graph, 'ship')).toBe(true);
    await memory.updateNode('test', { status: 'done' });
    expect(isBlocked(memory.graph, 'ship')).toBe(false);
  });

  it('subtasks, parent and context notes; archived events hidden unless asked for', async () => {
    const memory = await release();
    expect(ids(subtasksOf(memory.graph, 'ship'))).toEqual(['docs', 'test']);
    expect(ids(subtasksOf(memory.graph, 'ship', { includeArchived: true }))).toEqual(['docs', 'old', 'test']);
    expect(parentTaskOf(memory.graph, 'test')?.id).toBe('ship');
    expect(parentTaskOf(memory.graph, 'ship')).toBeUndefined();
    expect(ids(contextNotesOf(memory.graph, 'ship'))).toEqual(['plan']);
    expect(ids(referencingEvents(memory.graph, 'plan'))).toEqual(['ship']);
    expect(ids(referencingEvents(memory.graph, 'plan', { includeArchived: true }))).toEqual(['old', 'ship']);
    expect(() => subtasksOf(memory.graph, 'ghost')).toThrow(/no node with id ghost/);
  });

  it('a topological order runs every dependency first, higher priority first among the free', async () => {
    const memory = await release();
    expect(ids(topologicalOrder(memory.graph))).toEqual(['docs', 'fetch', 'build', 'test', 'ship']);
    expect(ids(topologicalOrder(memory.graph, { includeArchived: true }))).toContain('old');
    // A subgraph: notes left out; a dependency through an event outside it (ship → test → build) is not followed.
    expect(ids(topologicalOrder(memory.graph, { ids: ['test', 'build', 'plan'] }))).toEqual(['build', 'test']);
    expect(ids(topologicalOrder(memory.graph, { ids: ['ship', 'build'] }))).toEqual(['ship', 'build']);
  });

  it('a neighbourhood goes to the depth asked, hides archived events, and stops at maxNodes', async () => {
    const memory = await release();
    const near = neighbourhood(memory.graph, 'plan', { depth: 1 });
    expect(near.nodes.map(({ node, distance }) => [node.id, distance])).toEqual([
      ['plan', 0],
      ['notes', 1],
      ['ship', 1],
    ]);
    expect(near.edges.map((edge) => `${edge.from}>${edge.to}`).sort()).toEqual(['plan>notes', 'ship>plan']);
    expect(near.truncated).toBe(false);
    expect(ids(neighbourhood(memory.graph, 'plan', { depth: 1, includeArchived: true }).nodes.map(({ node }) => node))).toContain('old');
    const two = neighbourhood(memory.graph, 'plan', { depth: 2 });
    expect(ids(two.nodes.map(({ node }) => node))).toEqual(['plan', 'notes', 'ship', 'docs', 'test']);
    const capped = neighbourhood(memory.graph, 'plan', { depth: 2, maxNodes: 4 });
    expect([capped.nodes.length, capped.truncated]).toEqual([4, true]);
    const out = neighbourhood(memory.graph, 'ship', { depth: 5, direction: 'out', types: ['depends_on'] });
    expect(ids(out.nodes.map(({ node }) => node))).toEqual(['ship', 'test', 'build', 'docs', 'fetch']);
    expect(() => neighbourhood(memory.graph, 'plan', { depth: 11 })).toThrow(/query\.depth/);
  });

  it('ranks a neighbourhood by link weight, deterministically, scores adding up to 1', async () => {
    const { memory } = await testGraph(null);
    for (const id of ['hub', 'strong', 'weak', 'far']) await memory.addNote({ id, content: id });
    await memory.link({ from: 'hub', to: 'strong', type: 'references', weight: 5 });
    await memory.link({ from: 'hub', to: 'weak', type: 'references', weight: 1 });
    await memory.link({ from: 'weak', to: 'far', type: 'references', weight: 1 });
    const ranked = rankNeighbourhood(memory.graph, 'hub', { depth: 2 });
    expect(ranked.map(({ node }) => node.id)).toEqual(['hub', 'strong', 'weak', 'far']);
    expect(ranked.reduce((sum, { score }) => sum + score, 0)).toBeCloseTo(1, 10);
    expect(rankNeighbourhood(memory.graph, 'hub', { depth: 2 })).toEqual(ranked);
    expect(rankNeighbourhood(memory.graph, 'far', { depth: 0 })).toEqual([{ node: memory.graph.node('far'), score: 1 }]);
  });
});

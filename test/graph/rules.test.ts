import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { type EdgeType, type GraphMemory, GraphRuleError, type NodeKind, allowedEdgeTypes, edgeAllowed } from '../../src/graph/index.js';
import { snapshotOf, testGraph } from './graphFixture.js';

/** The refusal `promise` rejects with, checked to be a GraphRuleError. */
async function refusal(promise: Promise<unknown>): Promise<GraphRuleError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GraphRuleError);
  return error as GraphRuleError;
}

async function nodeOf(memory: GraphMemory, kind: NodeKind, id: string): Promise<void> {
  if (kind === 'event') await memory.addEvent({ id, content: `event ${id}` });
  else await memory.addNote({ id, content: `note ${id}` });
}

const kinds: readonly NodeKind[] = ['event', 'note'];
const types: readonly EdgeType[] = ['depends_on', 'part_of', 'references', 'produces'];
// Seed 002 §2.3, written out again here on purpose: the test states the matrix, the code holds it.
const seedMatrix = new Set([
  'event event depends_on',
  'event event part_of',
  'note note references',
  'event note references',
  'note event references',
  'event note produces',
  'note event produces',
]);

describe('graph memory: the validity matrix and topology rules', () => {
  it('the matrix in the code is the seed’s, cell by cell', () => {
    for (const from of kinds)
      for (const to of kinds)
        for (const type of types) {
          expect(edgeAllowed(from, to, type), `${from} ${to} ${type}`).toBe(seedMatrix.has(`${from} ${to} ${type}`));
        }
    expect(allowedEdgeTypes.note.note).toEqual(['references']);
  });

  it.each(kinds.flatMap((from) => kinds.flatMap((to) => types.map((type) => [from, to, type] as const))))(
    '%s → %s by %s: accepted exactly when the matrix allows it',
    async (from, to, type) => {
      const { memory } = await testGraph(null);
      await nodeOf(memory, from, 'a');
      await nodeOf(memory, to, 'b');
      const before = snapshotOf(memory.graph);
      const linked = memory.link({ from: 'a', to: 'b', type });
      if (seedMatrix.has(`${from} ${to} ${type}`)) {
        expect(await linked).toMatchObject({ from: 'a', to: 'b', type, weight: 1 });
      } else {
        expect((await refusal(linked)).rule).toBe('edge_kinds');
        expect(snapshotOf(memory.graph)).toEqual(before);
      }
    },
  );

  it('refuses a depends_on edge that would close a cycle, naming the cycle in order in the message and the context', async () => {
    const { memory } = await testGraph(null);
    for (const id of ['a', 'b', 'c', 'd']) await nodeOf(memory, 'event', id);
    await memory.link({ from: 'a', to: 'b', type: 'depends_on' });
    await memory.link({ from: 'b', to: 'c', type: 'depends_on' });
    await memory.link({ from: 'c', to: 'd', type: 'depends_on' });
    const before = snapshotOf(memory.graph);
    const error = await refusal(memory.link({ from: 'd', to: 'a', type: 'depends_on' }));
    expect(error.rule).toBe('cycle');
    expect(error.code).toBe('invalid_input');
    expect(error.context['cycle']).toEqual(['d', 'a', 'b', 'c', 'd']);
    expect(error.message).toContain('d → a → b → c → d');
    expect(snapshotOf(memory.graph)).toEqual(before);
    // A diamond is no cycle.
    await memory.link({ from: 'a', to: 'c', type: 'depends_on' });
  });

  it('keeps part_of a forest: a second parent is refused naming the first, a cycle of parents too', async () => {
    const { memory } = await testGraph(null);
    for (const id of ['root', 'mid', 'leaf', 'other']) await nodeOf(memory, 'event', id);
    await memory.link({ from: 'mid', to: 'root', type: 'part_of' });
    await memory.link({ from: 'leaf', to: 'mid', type: 'part_of' });
    const second = await refusal(memory.link({ from: 'leaf', to: 'other', type: 'part_of' }));
    expect(second.rule).toBe('second_parent');
    expect(second.context['parent']).toBe('mid');
    expect(second.message).toContain('mid');
    const cycle = await refusal(memory.link({ from: 'root', to: 'leaf', type: 'part_of' }));
    expect(cycle.rule).toBe('cycle');
    expect(cycle.context['cycle']).toEqual(['root', 'leaf', 'mid', 'root']);
  });

  it('lets references and produces form cycles, but refuses self-loops and duplicates', async () => {
    const { memory } = await testGraph(null);
    for (const id of ['n1', 'n2', 'n3']) await nodeOf(memory, 'note', id);
    await nodeOf(memory, 'event', 'e');
    await memory.link({ from: 'n1', to: 'n2', type: 'references' });
    await memory.link({ from: 'n2', to: 'n3', type: 'references' });
    await memory.link({ from: 'n3', to: 'n1', type: 'references' });
    await memory.link({ from: 'e', to: 'n1', type: 'produces' });
    await memory.link({ from: 'n1', to: 'e', type: 'produces' });
    expect((await refusal(memory.link({ from: 'n1', to: 'n1', type: 'references' }))).rule).toBe('self_loop');
    expect((await refusal(memory.link({ from: 'n1', to: 'n2', type: 'references', weight: 3 }))).rule).toBe('duplicate_edge');
    expect((await refusal(memory.link({ from: 'n1', to: 'ghost', type: 'references' }))).rule).toBe('unknown_node');
    expect((await refusal(memory.unlink({ from: 'n2', to: 'n1', type: 'references' }))).rule).toBe('unknown_edge');
    expect(memory.graph.edgeCount).toBe(5);
  });

  it('removing a node removes its edges both ways', async () => {
    const { memory } = await testGraph(null);
    for (const id of ['a', 'b', 'c']) await nodeOf(memory, 'event', id);
    await memory.link({ from: 'a', to: 'b', type: 'depends_on' });
    await memory.link({ from: 'b', to: 'c', type: 'part_of' });
    await memory.removeNode('b');
    expect(memory.graph.edgeCount).toBe(0);
    expect(memory.graph.outEdges('a', 'depends_on')).toEqual([]);
    expect(memory.graph.inEdges('c', 'part_of')).toEqual([]);
  });

  it('refuses past maxNodes and maxEdges with memory_full, naming the limit', async () => {
    const { memory } = await testGraph(null, { limits: { maxNodes: 2, maxEdges: 1 } });
    await nodeOf(memory, 'note', 'a');
    await nodeOf(memory, 'note', 'b');
    const full = await refusal(memory.addNote({ content: 'one too many' }));
    expect([full.code, full.rule, full.context['limit']]).toEqual(['memory_full', 'node_limit', 'maxNodes']);
    await memory.link({ from: 'a', to: 'b', type: 'references' });
    const edges = await refusal(memory.link({ from: 'b', to: 'a', type: 'references' }));
    expect([edges.code, edges.rule]).toEqual(['memory_full', 'edge_limit']);
    expect(edges.message).toContain('maxEdges');
  });

  it('bounds every field, refusing with the field and the option named', async () => {
    const limits = { maxContentChars: 10, maxTitleChars: 5, maxTags: 1, maxTagChars: 3, maxSourceChars: 4, maxMetadataBytes: 20 };
    const { memory } = await testGraph(null, { limits });
    const cases: [Promise<unknown>, string, string][] = [
      [memory.addEvent({ content: 'x'.repeat(11) }), 'content', 'maxContentChars'],
      [memory.addNote({ content: '', title: 'longer' }), 'title', 'maxTitleChars'],
      [memory.addNote({ content: '', tags: ['a', 'b'] }), 'tags', 'maxTags'],
      [memory.addNote({ content: '', tags: ['abcd'] }), 'tags[0]', 'maxTagChars'],
      [memory.addNote({ content: '', source: 'https://x' }), 'source', 'maxSourceChars'],
      [memory.addEvent({ content: '', metadata: { long: 'x'.repeat(20) } }), 'metadata', 'maxMetadataBytes'],
    ];
    for (const [promise, field, option] of cases) {
      const error: unknown = await promise.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
      expect((error as ValidationError).message).toContain(option);
    }
    await memory.addEvent({ id: 'e', content: 'ok' });
    const update: unknown = await memory.updateNode('e', { content: 'x'.repeat(11) }).catch((reason: unknown) => reason);
    expect((update as ValidationError).field).toBe('content');
    expect(memory.graph.node('e')?.content).toBe('ok');
    expect(memory.graph.nodeCount).toBe(1);
  });

  it('refuses a patch with another kind’s fields, a kind change and unknown options', async () => {
    const { memory } = await testGraph(null);
    await nodeOf(memory, 'note', 'n');
    const patch: unknown = await memory.updateNode('n', { status: 'done' } as never).catch((reason: unknown) => reason);
    expect(patch).toBeInstanceOf(ValidationError);
    await expect(testGraph(null, { limits: { maxNodes: 0 } })).rejects.toThrow(/limits\.maxNodes/);
    await expect(testGraph(null, { ownerId: 'no spaces' })).rejects.toThrow(/ownerId/);
  });
});

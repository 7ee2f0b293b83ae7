import { describe, expect, it } from 'vitest';
import { graphHarness, snapshotOf, testGraph } from './graphFixture.js';

const { openEnv } = graphHarness();

describe('graph memory: persistence', () => {
  it('closing and reopening the environment gives the same graph, each owner its own', async () => {
    const { db, dir } = await openEnv();
    const { memory } = await testGraph(db);
    const { memory: society } = await testGraph(db, { ownerId: 'society' });
    await memory.addEvent({ id: 'e1', content: 'do it', dueAt: 5_000, priority: 2, sessionId: 's1', metadata: { why: ['because'] } });
    await memory.addNote({ id: 'n1', content: 'how', title: 'How', tags: ['howto'], source: 'file.md' });
    await memory.link({ from: 'e1', to: 'n1', type: 'references', weight: 2.5 });
    await memory.updateNode('e1', { status: 'in_progress' });
    await society.addNote({ id: 'n1', content: 'the society’s own n1' });
    const before = snapshotOf(memory.graph);
    await db.close();
    const reopened = await openEnv(dir);
    const { memory: again, logger } = await testGraph(reopened.db);
    expect(snapshotOf(again.graph)).toEqual(before);
    expect(again.graph.node('e1')).toMatchObject({ status: 'in_progress', dueAt: 5_000, sessionId: 's1', metadata: { why: ['because'] } });
    const { memory: societyAgain } = await testGraph(reopened.db, { ownerId: 'society' });
    expect(societyAgain.graph.node('n1')?.content).toBe('the society’s own n1');
    expect(societyAgain.graph.nodeCount).toBe(1);
    expect(logger.entries).toEqual([]);
  });

  it('skips a damaged record naming its db and key, and drops (and deletes) an edge whose node is gone', async () => {
    const { db, dir } = await openEnv();
    const { memory } = await testGraph(db);
    await memory.addEvent({ id: 'a', content: 'a' });
    await memory.addEvent({ id: 'b', content: 'b' });
    await memory.addEvent({ id: 'c', content: 'c' });
    await memory.link({ from: 'a', to: 'b', type: 'depends_on' });
    await memory.link({ from: 'c', to: 'a', type: 'part_of' });
    // Damage: a node record that fails its schema, and an edge record that does.
    const nodes = db.openDB<unknown>({ name: 'graph-nodes' });
    const edges = db.openDB<unknown>({ name: 'graph-edges' });
    await nodes.put(['agent-1', 'b'], { v: 1, node: { kind: 'event', id: 'b', content: 42 } });
    await edges.put(['agent-1', 'c', 'part_of', 'a'], { v: 1, weight: -1, createdAt: 0 });
    await db.close();
    const reopened = await openEnv(dir);
    const { memory: loaded, logger } = await testGraph(reopened.db);
    expect([...loaded.graph.nodes()].map((node) => node.id).sort()).toEqual(['a', 'c']);
    expect(loaded.graph.edgeCount).toBe(0);
    const lines = logger.entries.map(({ level, fields }) => [level, fields['db'], fields['key']]);
    expect(lines).toEqual([
      ['error', 'graph-nodes', '["agent-1","b"]'],
      ['error', 'graph-edges', '["agent-1","c","part_of","a"]'],
      ['error', 'graph-edges', '["agent-1","a","depends_on","b"]'],
    ]);
    // The edge to the lost node is gone from the store too: a new `b` does not inherit it.
    await loaded.addEvent({ id: 'b', content: 'a new b' });
    const { memory: third } = await testGraph(reopened.db);
    expect(third.graph.edgeCount).toBe(0);
    expect(third.graph.node('b')?.content).toBe('a new b');
  });

  it('a record that does not even decode is skipped alone, naming its key; the rest of the graph loads', async () => {
    const { db, dir } = await openEnv();
    const { memory } = await testGraph(db);
    for (const id of ['a', 'b', 'c']) await memory.addNote({ id, content: id });
    await memory.linkMany([
      { from: 'a', to: 'b', type: 'references' },
      { from: 'a', to: 'c', type: 'references' },
    ]);
    // Bytes msgpack cannot decode, in place of node b's record: a range read stops at them.
    await db.openDB<Buffer>({ name: 'graph-nodes', encoding: 'binary' }).put(['agent-1', 'b'], Buffer.from([0xd4, 0x72]));
    await db.close();
    const reopened = await openEnv(dir);
    const { memory: loaded, logger } = await testGraph(reopened.db);
    expect([...loaded.graph.nodes()].map((node) => node.id).sort()).toEqual(['a', 'c']);
    expect(loaded.graph.edge({ from: 'a', to: 'c', type: 'references' })).toBeDefined();
    expect(loaded.graph.edgeCount).toBe(1);
    const lines = logger.entries.map(({ fields }) => [fields['db'], fields['key'], String(fields['reason']).split(':')[0]]);
    expect(lines).toEqual([
      ['graph-nodes', '["agent-1","b"]', 'undecodable'],
      ['graph-edges', '["agent-1","a","references","b"]', 'no node with id b'],
    ]);
  });

  it('a memory-only graph writes nothing anywhere and works the same', async () => {
    const { memory } = await testGraph(null);
    await memory.addEvent({ id: 'a', content: 'a' });
    await memory.addEvent({ id: 'b', content: 'b' });
    await memory.link({ from: 'a', to: 'b', type: 'depends_on' });
    await memory.flushed();
    expect(memory.graph.edgeCount).toBe(1);
  });
});

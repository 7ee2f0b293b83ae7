import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { readStoredGraph } from '../../src/graph/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { call, graphSocieties, idOf, turn } from '../support/graphTurns.js';

// The graph memories a runtime keeps (issue 33, points 3 and 7): one per agent, in the session
// it was made in unless kept for the agent, plus the society's, which a role's policy opens to
// its agents; kept in the data dir across a restart, and erased with an agent the organisation forgets.

const society = graphSocieties();
const tempDir = tempDirsAfterEach('troupe-graph-memory-');

describe("an agent's graph and the society's", () => {
  it("shows a session's nodes in that session only, and those kept for the agent in every session", async () => {
    const { rt, model } = await society();
    const first = await turn(rt, model, [
      [call('add_note', { content: 'This conversation is about ticket 4711.' }), call('add_note', { content: 'The user is called Ada.', scope: 'agent' })],
    ]);
    const ticket = idOf(first.results[0]?.[0]);
    const ada = idOf(first.results[0]?.[1]);
    const other = await turn(rt, model, [[call('explore', {}), call('explore', { id: ticket }), call('create_event', { content: 'x', scope: 'agent' })]]);
    const [listed, hidden] = other.results[0] ?? [];
    expect(listed).toEqual({ nodes: [expect.objectContaining({ id: ada, scope: 'agent' })], total: 1 });
    expect(hidden).toEqual({ code: 'unknown_node', error: `explore failed: no node with id ${ticket} in this session` });
    const same = await turn(rt, model, [[call('explore', {})]], { sessionId: first.sessionId });
    const seen = same.results[0]?.[0] as { total: number; nodes: { id: string }[] };
    expect([seen.total, seen.nodes.map((node) => node.id).sort()]).toEqual([3, [ticket, ada, idOf(other.results[0]?.[2])].sort()]);
    // The operator's view sees every session, or one.
    expect((await rt.graph('root')).total).toBe(3);
    expect((await rt.graph('root', { sessionId: other.sessionId })).nodes.map(({ node }) => node.content).sort()).toEqual(['The user is called Ada.', 'x']);
  });

  it("lets a role whose policy allows it use the society's graph, which others' policies (or narrower settings) keep from them", async () => {
    const { rt, model } = await society();
    await rt.createRole({ name: 'librarian', prompt: 'You keep the shelves.', tools: { graphs: ['own', 'society'] } });
    const librarian = await rt.spawn({ role: 'librarian' });
    const narrowed = await rt.spawn({ role: 'librarian', tools: { graphs: ['own'] } });
    const kept = await turn(rt, model, [[call('add_note', { content: 'The style guide is in docs/style.md.', graph: 'society', scope: 'agent' })]], {
      agentId: librarian,
    });
    const note = idOf(kept.results[0]?.[0]);
    expect(kept.results[0]?.[0]).toMatchObject({ note: { id: note, metadata: { agentId: librarian } } });

    const refused = `explore failed: graph: your role may not use the "society" graph (its policy's graphs allows "own")`;
    const fromRoot = await turn(rt, model, [[call('explore', { graph: 'society' })]]);
    expect(fromRoot.results[0]?.[0]).toEqual({ code: 'invalid_input', error: refused });
    const fromNarrowed = await turn(rt, model, [[call('explore', { graph: 'society' })]], { agentId: narrowed });
    expect(fromNarrowed.results[0]?.[0]).toEqual({ code: 'invalid_input', error: refused });

    const shared = await rt.graph('society');
    expect(shared).toMatchObject({ ownerId: 'society', source: 'live', total: 1 });
    expect(shared.nodes[0]?.node).toMatchObject({ id: note, content: 'The style guide is in docs/style.md.', metadata: { agentId: librarian } });
    // Its own graph holds nothing of it.
    expect((await rt.graph(librarian)).total).toBe(0);
  });

  it('keeps every graph in the data dir across a restart, and reads a terminated agent’s from it', async () => {
    const dataDir = await tempDir();
    let { rt, model } = await society({ dataDir });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await rt.spawn({ role: 'worker' });
    const { results } = await turn(rt, model, [
      [call('create_event', { content: 'Plan the launch', scope: 'agent' }), call('create_event', { content: 'Book the venue', scope: 'agent' })],
      (earlier) => [call('link_nodes', { from: idOf(earlier[0]?.[0]), to: idOf(earlier[0]?.[1]), type: 'depends_on' })],
    ]);
    await turn(rt, model, [[call('add_note', { content: 'Venue shortlist: A, B.', scope: 'agent' })]], { agentId: worker });
    const plan = idOf(results[0]?.[0]);
    const venue = idOf(results[0]?.[1]);
    await rt.terminate(worker, { by: 'user' });
    // Terminated: read from the data dir.
    expect(await rt.graph(worker)).toMatchObject({ source: 'store', total: 1 });
    await rt.shutdown();

    ({ rt, model } = await society({ dataDir }));
    const after = await turn(rt, model, [[call('explore', { id: plan })]]);
    expect(after.results[0]?.[0]).toMatchObject({
      nodes: [{ id: plan, status: 'pending' }, { id: venue }],
      links: [{ from: plan, to: venue, type: 'depends_on' }],
    });
    expect((await rt.graph(worker)).nodes.map(({ node }) => node.content)).toEqual(['Venue shortlist: A, B.']);
  });

  it('erases the graph of an agent the organisation forgets, with its memory', async () => {
    const dataDir = await tempDir();
    const { rt, model } = await society({ dataDir });
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await rt.spawn({ role: 'worker' });
    await turn(rt, model, [[call('add_note', { content: 'a note of the worker' })]], { agentId: worker });
    await turn(rt, model, [[call('add_note', { content: 'a note of root' })]]);
    await rt.terminate(worker, { by: 'user' });
    await rt.shutdown();
    // The start's retention check forgets every terminated agent; the shutdown waits for it.
    await (await society({ dataDir, terminatedAgentsKept: 0 })).rt.shutdown();

    const env = open({ path: dataDir, noSubdir: false, maxDbs: 30, readOnly: true });
    try {
      expect(readStoredGraph(env, worker).nodeCount).toBe(0);
      expect([...readStoredGraph(env, 'root').nodes()].map((node) => node.content)).toEqual(['a note of root']);
    } finally {
      await env.close();
    }
  });

  it('refuses a bad graph limit at createRuntime, naming it', async () => {
    await expect(createRuntime({ memory: { graph: { maxNodes: 0 } } })).rejects.toThrow(/^memory\.graph\.maxNodes: Too small/);
    await expect(createRuntime({ memory: { graph: { maxEdgez: 5 } as never } })).rejects.toThrow(/^memory\.graph: Unrecognized key: "maxEdgez"/);
    await expect(createRuntime({ memory: { workNodes: -1 } })).rejects.toThrow(/^memory\.workNodes: Too small/);
  });
});

import { describe, expect, it } from 'vitest';
import { type Result, call, graphSocieties, idOf, turn } from '../support/graphTurns.js';

// The graph tools (add_note, create_event, link_nodes, explore, update_event_status) called by
// the scripted model in a real runtime: what they answer, what they refuse (naming the rule, the
// field, the blockers, the cycle's path), what each graph keeps, and what a data dir keeps of it.

const society = graphSocieties();

describe('the graph tools through a model', () => {
  it('records events and a note, links them, explores a neighbourhood, and refuses to start a blocked event or close a cycle', async () => {
    const { rt, model } = await society();
    const ids = (earlier: readonly Result[][]) => ({ report: idOf(earlier[0]?.[0]), data: idOf(earlier[0]?.[1]), note: idOf(earlier[0]?.[2]) });
    const { results, sessionId } = await turn(rt, model, [
      [
        call('create_event', { content: 'Write the quarterly report', priority: 2, dueAt: '2025-03-01T12:00:00Z' }),
        call('create_event', { content: 'Collect the sales data' }),
        call('add_note', { content: 'Sales were up 12% in Q3.', title: 'Q3 sales', tags: ['sales'], source: 'crm/q3.csv' }),
      ],
      (earlier) => {
        const { report, data, note } = ids(earlier);
        return [
          call('link_nodes', { from: report, to: data, type: 'depends_on' }),
          call('link_nodes', { from: report, to: note, type: 'references', weight: 2 }),
          call('link_nodes', { from: data, to: note, type: 'produces' }),
        ];
      },
      (earlier) => [call('explore', { id: ids(earlier).report, depth: 1 })],
      (earlier) => [call('update_event_status', { id: ids(earlier).report, status: 'in_progress' })],
      (earlier) => [call('link_nodes', { from: ids(earlier).data, to: ids(earlier).report, type: 'depends_on' })],
      (earlier) => [call('update_event_status', { id: ids(earlier).data, status: 'done' })],
      (earlier) => [call('update_event_status', { id: ids(earlier).report, status: 'in_progress' })],
    ]);
    const [made, linked, explored, blocked, cycle, finished, started] = results;
    const { report, data, note } = ids(results);
    expect(made?.[0]).toEqual({
      event: {
        id: report,
        kind: 'event',
        content: 'Write the quarterly report',
        scope: 'session',
        createdAt: expect.any(String) as string,
        status: 'pending',
        priority: 2,
        dueAt: '2025-03-01T12:00:00.000Z',
      },
    });
    expect(made?.[2]).toMatchObject({ note: { id: note, kind: 'note', title: 'Q3 sales', tags: ['sales'], source: 'crm/q3.csv' } });
    expect(linked).toEqual([
      { link: { from: report, to: data, type: 'depends_on', weight: 1 } },
      { link: { from: report, to: note, type: 'references', weight: 2 } },
      { link: { from: data, to: note, type: 'produces', weight: 1 } },
    ]);

    const view = explored?.[0] as { nodes: { id: string; distance: number }[]; links: unknown[]; truncated: boolean };
    expect(view.nodes.map((node) => [node.id, node.distance])).toEqual([[report, 0], ...[data, note].sort().map((id) => [id, 1])]);
    expect(view.links).toHaveLength(3);
    expect(view.links).toContainEqual({ from: data, to: note, type: 'produces', weight: 1 });
    expect(view.truncated).toBe(false);

    expect(blocked?.[0]).toEqual({
      code: 'invalid_input',
      error: `update_event_status failed: event ${report} cannot become in_progress: it depends on 1 unfinished event(s): ${data} "Collect the sales data" (pending); finish them first (update_event_status)`,
    });
    expect(cycle?.[0]).toEqual({
      code: 'invalid_input',
      error: `link_nodes failed: depends_on ${data} → ${report} would close the cycle ${data} → ${report} → ${data}`,
    });
    expect(finished?.[0]).toMatchObject({ event: { id: data, status: 'done' }, changed: true });
    expect(started?.[0]).toMatchObject({ event: { id: report, status: 'in_progress' }, changed: true });
    // The same status again (a turn resumed after a crash runs it again) changes nothing.
    const again = await turn(rt, model, [[call('update_event_status', { id: report, status: 'in_progress' })]], { sessionId });
    expect(again.results[0]?.[0]).toMatchObject({ event: { id: report, status: 'in_progress' }, changed: false });

    // What the program reads of the same graph: the edge types, the statuses the tools set.
    const graph = await rt.graph('root', { nodeId: report, depth: 1 });
    expect(graph).toMatchObject({ ownerId: 'root', source: 'live', counts: { nodes: 3, edges: 3 }, total: 3 });
    expect(graph.edges.map((edge) => edge.type).sort()).toEqual(['depends_on', 'produces', 'references']);
    expect(graph.nodes[0]?.node).toMatchObject({ id: report, kind: 'event', status: 'in_progress' });
  });

  it('hides archived events from explore unless asked for, and lists the newest nodes without an id', async () => {
    const { rt, model } = await society();
    const { results } = await turn(rt, model, [
      [call('create_event', { content: 'Ship it' }), call('create_event', { content: 'Old idea' })],
      (earlier) => [call('link_nodes', { from: idOf(earlier[0]?.[0]), to: idOf(earlier[0]?.[1]), type: 'depends_on' })],
      (earlier) => [call('update_event_status', { id: idOf(earlier[0]?.[1]), status: 'archived' })],
      (earlier) => [call('explore', { id: idOf(earlier[0]?.[0]) }), call('explore', { id: idOf(earlier[0]?.[0]), includeArchived: true }), call('explore', {})],
    ]);
    const [hidden, shown, newest] = results[3] ?? [];
    const ship = idOf(results[0]?.[0]);
    const old = idOf(results[0]?.[1]);
    expect((hidden?.['nodes'] as { id: string }[]).map((node) => node.id)).toEqual([ship]);
    expect((shown?.['nodes'] as { id: string }[]).map((node) => node.id)).toEqual([ship, old]);
    expect(newest).toEqual({ nodes: [expect.objectContaining({ id: ship, content: 'Ship it' })], total: 1 });
  });

  it('refuses bad arguments, a field past the graph limit, another graph than its policy allows and a full graph, naming each, and the turn goes on', async () => {
    const { rt, model } = await society({ memory: { graph: { maxContentChars: 40, maxNodes: 3, maxTags: 2 } } });
    const { results } = await turn(rt, model, [
      [
        call('add_note', { content: '   ' }),
        call('add_note', { content: 'ok', tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }),
        call('explore', { id: 'x', depth: 5 }),
        call('link_nodes', { from: 'a', to: 'b', type: 'owns' }),
        call('create_event', { content: 'ok', dueAt: 'next tuesday' }),
        call('update_event_status', { id: 'x', status: 'finished' }),
      ],
      [
        call('add_note', { content: 'x'.repeat(41) }),
        call('add_note', { content: 'tagged', tags: ['a', 'b', 'c'] }),
        call('add_note', { content: 'shared', graph: 'society' }),
        call('explore', { id: 'ghost' }),
      ],
      [call('add_note', { content: 'a note' }), call('create_event', { content: 'one' })],
      [call('create_event', { content: 'two' })],
      [call('create_event', { content: 'three' })],
      (earlier) => [call('update_event_status', { id: idOf(earlier[2]?.[0]), status: 'done' })],
    ]);
    const errors = results.slice(0, 2).map((step) => step.map((result) => [result['code'], result['error']]));
    expect(errors[0]).toEqual([
      ['invalid_input', 'invalid arguments for add_note: content: must not be blank'],
      ['invalid_input', expect.stringMatching(/^invalid arguments for add_note: tags: Too big/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for explore: depth: Too big: expected number to be <=4/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for link_nodes: type: Invalid option/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for create_event: dueAt: Invalid ISO datetime/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for update_event_status: status: Invalid option/)],
    ]);
    expect(errors[1]).toEqual([
      ['invalid_input', 'add_note failed: content: 41 characters, more than maxContentChars (40)'],
      ['invalid_input', 'add_note failed: tags: 3 tags, more than maxTags (2)'],
      ['invalid_input', `add_note failed: graph: your role may not use the "society" graph (its policy's graphs allows "own")`],
      ['unknown_node', 'explore failed: no node with id ghost'],
    ]);
    expect(results[4]?.[0]).toEqual({ code: 'memory_full', error: 'create_event failed: the graph holds 3 nodes, its limit (maxNodes 3)' });
    expect(results[5]?.[0]).toEqual({
      code: 'invalid_input',
      error: `update_event_status failed: id: node ${idOf(results[2]?.[0])} is a note; only events have a status`,
    });
    expect((await rt.graph('root')).counts).toEqual({ nodes: 3, edges: 0 });
  });
});

import { describe, expect, it } from 'vitest';
import { call, graphSocieties, idOf, turn } from '../support/graphTurns.js';

// The agent's graph in every search of its memory (issue 33, point 2): a note an agent made is
// found by search_memory and rt.memory's search, in its session only, with what found it.

const society = graphSocieties();

interface Found {
  id: string;
  text: string;
  node?: string;
  channels: { bm25: number | null; graph: number | null };
}

describe("the agent's graph in its memory searches", () => {
  it('finds a note by its words with search_memory and rt.memory, in its own session only', async () => {
    const { rt, model } = await society();
    const made = await turn(rt, model, [[call('add_note', { title: 'incident', content: 'Ticket QX7731 was caused by a stale cache.' })]]);
    const note = idOf(made.results[0]?.[0]);
    const same = await turn(rt, model, [[call('search_memory', { query: 'what caused QX7731?' })]], { sessionId: made.sessionId });
    const { facts } = same.results[0]?.[0] as { facts: Found[] };
    expect(facts).toEqual([expect.objectContaining({ id: note, node: 'note', text: 'incident: Ticket QX7731 was caused by a stale cache.' })]);
    expect(facts[0]?.channels.bm25).toBeGreaterThan(0);
    const other = await turn(rt, model, [[call('search_memory', { query: 'what caused QX7731?' })]]);
    expect((other.results[0]?.[0] as { facts: Found[] }).facts).toEqual([]);
    const view = await rt.memory('root', { search: 'QX7731', sessionId: made.sessionId });
    expect(view.entries).toEqual([expect.objectContaining({ tier: 'l4', id: note, node: { kind: 'note' } })]);
  });

  it("reaches a note along an edge from a note found by its words, and never finds a Task's own record by its words", async () => {
    const { rt, model } = await society({ memory: { workNodes: 100 } });
    const made = await turn(rt, model, [
      [
        call('add_note', { content: 'Ticket QX7731 is open.', scope: 'agent' }),
        call('add_note', { content: 'The cache must be flushed nightly.', scope: 'agent' }),
      ],
    ]);
    const [ticket, fix] = [idOf(made.results[0]?.[0]), idOf(made.results[0]?.[1])];
    await turn(rt, model, [[call('link_nodes', { from: ticket, to: fix, type: 'references' })]]);
    const view = await rt.memory('root', { search: 'QX7731' });
    const ids = view.entries.map((entry) => ('id' in entry ? entry.id : ''));
    expect(ids).toContain(ticket);
    const reached = view.entries.find((entry) => 'id' in entry && entry.id === fix);
    expect(reached).toMatchObject({ node: { kind: 'note' }, channels: { bm25: null } });
    expect((reached as { channels: { graph: number } }).channels.graph).toBeGreaterThan(0);
    // The Tasks of the turns above are events in root's graph; their words are not searched.
    const graph = await rt.graph('root');
    const work = graph.nodes.filter(({ node }) => typeof node.metadata['work'] === 'string').map(({ node }) => node.id);
    expect(work.length).toBeGreaterThan(0);
    const byTaskText = await rt.memory('root', { search: 'keep a graph' });
    expect(byTaskText.entries.filter((entry) => 'id' in entry && work.includes(entry.id))).toEqual([]);
  });
});

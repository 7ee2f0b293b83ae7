import { describe, expect, it } from 'vitest';
import type { GraphView } from '../../src/runtime/index.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';

// GET /api/agents/:id/graph/nodes[/:nodeId] over real HTTP on loopback, on graphs a program
// wrote through `rt.graphMemory` (the graph tools write the same graphs: test/runtime/graphTools.test.ts).

const served = serverPerTest();

interface ErrorBody {
  readonly error: { code: string; message: string; field: string | null };
}

/**
 * A served runtime whose root keeps a report that depends on data, a note it references, and an
 * archived idea; their ids sort in the order they are made, so newest first is the same order
 * whether two were made in the same millisecond (then by id) or not.
 */
async function withGraph(memory: boolean, secret = 'sk-graph-secret-0123456789') {
  const server = await served({ memory, runtime: { secrets: [secret] } });
  const graph = await server.rt.graphMemory('root');
  const report = await graph.addEvent({ id: 'n1-report', content: 'Write the report' });
  await graph.addEvent({ id: 'n2-data', content: 'Collect the data' });
  await graph.addNote({ id: 'n3-creds', content: `The API key is ${secret}.`, title: 'access' });
  await graph.addEvent({ id: 'n4-idea', content: 'An old idea', status: 'archived' });
  await graph.link({ from: report.id, to: 'n2-data', type: 'depends_on' });
  await graph.link({ from: report.id, to: 'n3-creds', type: 'references' });
  await graph.link({ from: 'n4-idea', to: report.id, type: 'part_of' });
  return server;
}

describe('GET /api/agents/:id/graph/nodes', () => {
  it('lists the newest nodes, archived ones only when asked for, and shows a node with its neighbourhood and edge types, redacted', async () => {
    const { url } = await withGraph(false);
    const listed = await call<GraphView>(url, '/api/agents/root/graph/nodes?limit=2');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({
      ownerId: 'root',
      source: 'live',
      nodeId: null,
      depth: null,
      counts: { nodes: 4, edges: 3 },
      total: 3,
      truncated: true,
    });
    expect(listed.body.nodes.map(({ node, distance }) => [node.id, distance])).toEqual([
      ['n3-creds', null],
      ['n2-data', null],
    ]);
    const all = await call<GraphView>(url, '/api/agents/root/graph/nodes?includeArchived=true');
    expect(all.body.nodes.map(({ node }) => node.id)).toEqual(['n4-idea', 'n3-creds', 'n2-data', 'n1-report']);

    const around = await call<GraphView>(url, '/api/agents/root/graph/nodes/n1-report?depth=1');
    expect(around.status).toBe(200);
    expect(around.body).toMatchObject({ nodeId: 'n1-report', depth: 1, total: 3, truncated: false });
    expect(around.body.nodes.map(({ node, distance }) => [node.id, distance])).toEqual([
      ['n1-report', 0],
      ['n2-data', 1],
      ['n3-creds', 1],
    ]);
    expect(around.body.edges.map(({ from, type, to }) => `${from} ${type} ${to}`).sort()).toEqual([
      'n1-report depends_on n2-data',
      'n1-report references n3-creds',
    ]);
    const note = around.body.nodes[2]?.node;
    expect(note).toMatchObject({ kind: 'note', title: 'access', content: 'The API key is [REDACTED].' });
    // Exactly the view's fields: the serializer compiled from its schema writes nothing else.
    expect(Object.keys(note ?? {}).sort()).toEqual(['content', 'createdAt', 'id', 'kind', 'metadata', 'sessionId', 'source', 'tags', 'title', 'updatedAt']);

    const withArchived = await call<GraphView>(url, '/api/agents/root/graph/nodes/n1-report?depth=1&includeArchived=true');
    expect(withArchived.body.edges.map(({ type }) => type)).toContain('part_of');
  });

  it("reads a terminated agent's graph from the data dir; memory only, answers 409 agent_terminated", async () => {
    for (const memory of [false, true]) {
      const { url, rt } = await served({ memory });
      await rt.createRole({ name: 'worker', prompt: 'You work.' });
      const worker = await rt.spawn({ role: 'worker' });
      await (await rt.graphMemory(worker)).addNote({ id: 'kept', content: 'kept after the agent' });
      await rt.terminate(worker, { by: 'user' });
      const reply = await call<GraphView & ErrorBody>(url, `/api/agents/${worker}/graph/nodes/kept`);
      if (memory) {
        expect(reply.status).toBe(409);
        expect(reply.body.error).toMatchObject({ code: 'agent_terminated', field: 'id', message: expect.stringMatching(/kept in memory only/) as string });
      } else {
        expect(reply.status).toBe(200);
        expect(reply.body).toMatchObject({ source: 'store', nodes: [{ node: { id: 'kept' }, distance: 0 }] });
      }
    }
  });

  it("serves the society's graph under the id society", async () => {
    const { url, rt } = await served({ memory: true });
    await (await rt.graphMemory('society')).addNote({ id: 'shared', content: 'for everyone' });
    const reply = await call<GraphView>(url, '/api/agents/society/graph/nodes/shared?depth=0');
    expect(reply.body).toMatchObject({ ownerId: 'society', nodes: [{ node: { id: 'shared', content: 'for everyone' }, distance: 0 }], edges: [] });
  });

  it.each([
    ['/api/agents/root/graph/nodes/n1-report?depth=11', 400, 'invalid_input', 'depth', /^depth: /],
    ['/api/agents/root/graph/nodes/n1-report?depth=x', 400, 'invalid_input', 'depth', /^depth: must be a whole number/],
    ['/api/agents/root/graph/nodes?depth=1', 400, 'invalid_input', null, /Unrecognized key: "depth"/],
    ['/api/agents/root/graph/nodes?limit=501', 400, 'invalid_input', 'limit', /^limit: /],
    ['/api/agents/root/graph/nodes?includeArchived=yes', 400, 'invalid_input', 'includeArchived', /^includeArchived: /],
    ['/api/agents/root/graph/nodes/no%20de', 400, 'invalid_input', 'nodeId', /^nodeId: /],
    ['/api/agents/root/graph/nodes/ghost', 404, 'unknown_node', 'nodeId', /^no node with id ghost$/],
    ['/api/agents/nobody/graph/nodes', 404, 'unknown_agent', 'id', /^no agent "nobody"$/],
  ])('refuses %s with %i %s naming %s', async (path, status, code, field, message) => {
    const { url } = await withGraph(true);
    const refused = await call<ErrorBody>(url, path);
    expect(refused.status).toBe(status);
    expect(refused.body.error).toMatchObject({ code, field, message: expect.stringMatching(message) as string });
  });

  it('answers 503 once the runtime is shut down', async () => {
    const { url, rt } = await withGraph(false);
    await rt.shutdown();
    const closed = await call<ErrorBody>(url, '/api/agents/root/graph/nodes/n1-report');
    expect([closed.status, closed.body.error.code]).toEqual([503, 'intake_closed']);
  });
});

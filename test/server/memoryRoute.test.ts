import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryView } from '../../src/runtime/index.js';
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';
import { rememberThings, rememberedFacts, serverModel } from '../support/rememberingSociety.js';

// GET /api/agents/:id/memory over real HTTP on loopback, on a society whose model (the `openai`
// package against the local OpenAI-compatible server) gave its agents things to remember.

let model: OpenAICompatibleServer;
beforeAll(async () => {
  model = await startOpenAICompatibleServer();
});
afterAll(async () => {
  await model.close();
});

const served = serverPerTest();

interface ErrorBody {
  readonly error: { code: string; message: string; field: string | null };
}

async function remembering(memory: boolean) {
  const server = await served({ memory, model: serverModel(model) });
  return { ...server, ...(await rememberThings(server.rt, model)) };
}

describe('GET /api/agents/:id/memory', () => {
  it('counts the tiers, pages one, keeps to a session, and searches L4', async () => {
    const { url, rain } = await remembering(false);
    const counts = await call<MemoryView>(url, '/api/agents/root/memory');
    expect(counts.status).toBe(200);
    expect(counts.body).toEqual({
      agentId: 'root',
      source: 'live',
      sessionId: null,
      counts: { l1: 5, l2: 0, l3: 0, l4: 2 },
      tier: null,
      search: null,
      total: 0,
      offset: 0,
      entries: [],
    });

    const session = await call<MemoryView>(url, `/api/agents/root/memory?tier=l1&sessionId=${rain}`);
    expect(session.body.entries.map((entry) => entry.text)).toEqual(['write a haiku about rain', 'Rain on the roof']);
    // Exactly the view's fields: the serializer compiled from its schema writes nothing else.
    expect(Object.keys(session.body.entries[0] ?? {}).sort()).toEqual(
      ['action', 'createdAt', 'from', 'id', 'importance', 'retrievals', 'seq', 'sessionId', 'status', 'text', 'tier', 'to'].sort(),
    );

    const page = await call<MemoryView>(url, '/api/agents/root/memory?tier=l1&offset=3&limit=1');
    expect([page.body.total, page.body.offset, page.body.entries.map((entry) => entry.text)]).toEqual([5, 3, ['now one about snow']]);

    const found = await call<MemoryView>(url, `/api/agents/root/memory?q=${encodeURIComponent('which haiku does the user like')}&k=1`);
    expect(found.body).toMatchObject({ tier: 'l4', search: { text: 'which haiku does the user like', k: 1 }, total: 1 });
    expect(found.body.entries).toEqual([
      expect.objectContaining({ tier: 'l4', id: 'f0', text: rememberedFacts.likes, similarity: expect.any(Number) as number }),
    ]);
  });

  it("reads a terminated agent's memory from the data dir; memory only, answers 409 agent_terminated", async () => {
    const onDisk = await remembering(false);
    const stored = await call<MemoryView>(onDisk.url, `/api/agents/${onDisk.keeper}/memory?tier=l4`);
    expect(stored.body).toMatchObject({ agentId: onDisk.keeper, source: 'store', entries: [{ id: 'f0', text: rememberedFacts.doorCode }] });

    const inMemory = await remembering(true);
    const gone = await call<ErrorBody>(inMemory.url, `/api/agents/${inMemory.keeper}/memory`);
    expect(gone.status).toBe(409);
    expect(gone.body.error).toMatchObject({ code: 'agent_terminated', field: 'id', message: expect.stringMatching(/kept in memory only/) as string });
  });

  it.each([
    ['tier=l5', 'tier', /^tier: /],
    ['tier=l1&limit=501', 'limit', /^limit: /],
    ['tier=l1&limit=0', 'limit', /^limit: /],
    ['tier=l1&offset=x', 'offset', /^offset: must be a whole number/],
    ['sessionId=not%20a%20session', 'sessionId', /^sessionId: /],
    ['k=3', 'k', /^k: is how many facts a search returns: give search too/],
    ['q=rain&tier=l2', 'tier', /^tier: is l2, but search looks through L4 facts/],
    ['q=rain&offset=1', 'offset', /^offset: pages a tier/],
    ['q=%20%20', 'q', /^q: must not be blank/],
    ['q=rain&k=101', 'k', /^k: /],
    ['page=2', null, /Unrecognized key: "page"/],
  ])('refuses ?%s with 400 invalid_input naming %s', async (query, field, message) => {
    const { url } = await served({ memory: true });
    const refused = await call<ErrorBody>(url, `/api/agents/root/memory?${query}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_input', field, message: expect.stringMatching(message) as string });
  });

  it("names q when the fact store's own limit on a search's text refuses it", async () => {
    const { url } = await served({ memory: true, runtime: { memory: { facts: { maxQueryChars: 10 } } } });
    const refused = await call<ErrorBody>(url, `/api/agents/root/memory?q=${'x'.repeat(11)}`);
    expect([refused.status, refused.body.error]).toEqual([
      400,
      { code: 'invalid_input', field: 'q', message: 'q: is 11 characters, more than maxQueryChars (10)' },
    ]);
  });

  it('answers 404 for an agent it never had, 400 for a malformed id, and 503 once the runtime is shut down', async () => {
    const { url, rt } = await served({ memory: true });
    const unknown = await call<ErrorBody>(url, '/api/agents/nobody/memory');
    expect([unknown.status, unknown.body.error]).toEqual([404, { code: 'unknown_agent', message: 'no agent "nobody"', field: 'id' }]);
    expect((await call<ErrorBody>(url, '/api/agents/no%20body/memory')).body.error).toMatchObject({ code: 'invalid_input', field: 'id' });
    await rt.shutdown();
    const closed = await call<ErrorBody>(url, '/api/agents/root/memory');
    expect([closed.status, closed.body.error.code]).toEqual([503, 'intake_closed']);
  });
});

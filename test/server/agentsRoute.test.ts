import { describe, expect, it } from 'vitest';
import { HeldCallsModel } from '../support/heldCalls.js';
import { answered, call, serverPerTest } from '../support/httpServerFixture.js';
import { until } from '../support/runtimeFixture.js';

interface AgentsBody {
  readonly total: number;
  readonly offset: number;
  readonly agents: { id: string; status: string; state: string }[];
  readonly source: 'store' | 'memory';
}

const served = serverPerTest();

describe('GET /api/agents pages and filters', () => {
  it('reads terminated agents from the store, pages them oldest first, and filters by status', async () => {
    // Each requirement spawns a worker and terminates it; only the last two stay in memory.
    const { url, rt } = await served({ runtime: { terminatedAgentsInMemory: 2 } });
    for (let i = 0; i < 5; i++) await answered(rt, await rt.submit(`write a haiku #${i}`));

    const terminated = await call<AgentsBody>(url, '/api/agents?status=terminated');
    expect(terminated.status).toBe(200);
    expect(terminated.body).toMatchObject({ total: 5, offset: 0, source: 'store' });
    expect(terminated.body.agents.every((agent) => agent.status === 'terminated' && agent.state === 'terminated')).toBe(true);

    const paged: string[] = [];
    for (let offset = 0; offset < 5; offset += 2) {
      const page = await call<AgentsBody>(url, `/api/agents?status=terminated&offset=${offset}&limit=2`);
      expect(page.body).toMatchObject({ total: 5, offset });
      paged.push(...page.body.agents.map((agent) => agent.id));
    }
    expect(paged).toEqual(terminated.body.agents.map((agent) => agent.id));

    const active = await call<AgentsBody>(url, '/api/agents?status=active');
    expect(active.body).toMatchObject({ total: 1, agents: [{ id: 'root', status: 'active' }] });
    const all = await call<AgentsBody>(url, '/api/agents?limit=1');
    expect(all.body).toMatchObject({ total: 6, agents: [{ id: 'root' }] });
  });

  it('says how many sessions an agent is serving at once (its lanes) and how many Tasks wait', async () => {
    const model = new HeldCallsModel();
    const { url, rt } = await served({ memory: true, model });
    const first = await rt.submit('one');
    await rt.submit('two');
    await rt.submit('one again', { sessionId: first });
    await until(() => model.waiting.length === 2, 'two lanes at the model');
    const root = await call<{ state: string; lanes: number; queued: number }>(url, '/api/agents/root');
    expect(root.body).toMatchObject({ state: 'running.turn.thinking', lanes: 2, queued: 1 });
    const page = await call<AgentsBody>(url, '/api/agents?status=active');
    expect(page.body.agents).toEqual([expect.objectContaining({ id: 'root', lanes: 2, queued: 1 })]);
    for (const held of model.waiting) held.release();
  });

  it.each([
    ['limit=1001', 'limit'],
    ['limit=0', 'limit'],
    ['offset=-1', 'offset'],
    ['status=gone', 'status'],
    ['page=2', ''],
  ])('refuses ?%s with 400 invalid_input', async (query, field) => {
    const { url } = await served({ memory: true });
    const reply = await call<{ error: { code: string; field: string | null } }>(url, `/api/agents?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('invalid_input');
    if (field !== '') expect(reply.body.error.field).toBe(field);
  });
});

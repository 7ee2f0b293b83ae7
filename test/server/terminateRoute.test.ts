import { describe, expect, it } from 'vitest';
import { call, serverPerTest } from '../support/httpServerFixture.js';

// Issue 30, point 2: a child of root that no turn will terminate (its parent's turn ended without
// doing so) can be terminated by the user: DELETE /api/agents/:id, under the meta-tool's rule with
// the user as the owner of the top-level agents.

const served = serverPerTest();

describe('DELETE /api/agents/:id', () => {
  it('terminates a child of root left live, and answers again as the first time', async () => {
    const { url, rt } = await served();
    await rt.createRole({ name: 'worker', prompt: 'Do the work.' });
    const orphan = await rt.spawn({ role: 'worker', parent: 'root' });
    const grandchild = await rt.spawn({ role: 'worker', parent: orphan });

    const first = await call(url, `/api/agents/${orphan}?mode=abort&reason=left%20over`, { method: 'DELETE' });
    expect(first).toMatchObject({ status: 200, body: { agentId: orphan, terminated: true, mode: 'abort' } });
    // Termination cascades, and is recorded as the user's.
    expect([rt.agent(orphan)?.status, rt.agent(grandchild)?.status]).toEqual(['terminated', 'terminated']);
    const termination = (await call<{ agents: unknown }>(url, `/api/agents/${orphan}`)).body;
    expect(termination).toMatchObject({ status: 'terminated' });

    const again = await call(url, `/api/agents/${orphan}`, { method: 'DELETE' });
    expect(again).toMatchObject({ status: 200, body: { agentId: orphan, terminated: true, mode: 'abort' } });
  });

  it('refuses root, a deeper descendant, an unknown agent and bad input, changing nothing', async () => {
    const { url, rt } = await served({ memory: true });
    await rt.createRole({ name: 'worker', prompt: 'Do the work.' });
    const child = await rt.spawn({ role: 'worker', parent: 'root' });
    const grandchild = await rt.spawn({ role: 'worker', parent: child });

    const refusals = [
      [`/api/agents/root`, 403, 'not_parent'],
      [`/api/agents/${grandchild}`, 403, 'not_parent'],
      [`/api/agents/nobody`, 404, 'unknown_agent'],
      [`/api/agents/${child}?mode=later`, 400, 'invalid_input'],
      [`/api/agents/${child}?when=now`, 400, 'invalid_input'],
    ] as const;
    for (const [path, status, code] of refusals) {
      const reply = await call<{ error: { code: string } }>(url, path, { method: 'DELETE' });
      expect([path, reply.status, reply.body.error.code]).toEqual([path, status, code]);
    }
    expect(rt.agents().map((agent) => agent.status)).toEqual(['active', 'active', 'active']);
  });

  it('is in the OpenAPI document', async () => {
    const { url } = await served({ memory: true });
    const document = await call<{ paths: Record<string, Record<string, { operationId: string }>> }>(url, '/openapi.json');
    expect(document.body.paths['/api/agents/{id}']?.['delete']?.operationId).toBe('terminateAgent');
  });
});

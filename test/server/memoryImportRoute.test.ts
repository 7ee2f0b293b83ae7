import { describe, expect, it } from 'vitest';
import type { ImportReport, MemoryView } from '../../src/runtime/index.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';

// POST /api/agents/:id/memory and DELETE /api/agents/:id/memory/facts/:factId over real HTTP on
// loopback: a program's facts and turns into an agent's L4 (rt.importMemory, rt.forget), a bad
// item refusing the whole body by name, and what was stored found with its metadata.

const served = serverPerTest();

interface ErrorBody {
  readonly error: { code: string; message: string; field: string | null };
}

describe('POST /api/agents/:id/memory', () => {
  it('stores facts and turns in order, finds them with their metadata, and forgets one', async () => {
    const { url } = await served({ memory: true });
    const items = [
      { text: 'The user prefers answers in French.', metadata: { source: 'crm-7' } },
      { kind: 'turn', speaker: 'Ana', text: 'My sister Lena lives in Porto.', at: '2024-03-01T10:00:00Z', conversation: 'chat-9' },
    ];
    const imported = await call<ImportReport>(url, '/api/agents/root/memory', { json: { items } });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ stored: 2, merged: 0 });
    const [fact, turn] = imported.body.facts;
    expect(fact).toMatchObject({ item: 0, scope: 'agent', metadata: { source: 'crm-7' }, merged: false });
    expect(turn).toMatchObject({ item: 1, text: 'Ana: My sister Lena lives in Porto.', metadata: { speaker: 'Ana', conversation: 'chat-9' } });

    const found = await call<MemoryView>(url, `/api/agents/root/memory?q=${encodeURIComponent('where does Lena live?')}`);
    expect(found.body.entries[0]).toMatchObject({ id: turn?.id, metadata: { speaker: 'Ana', at: Date.parse('2024-03-01T10:00:00Z') } });

    const forgotten = await call(url, `/api/agents/root/memory/facts/${fact?.id ?? ''}`, { method: 'DELETE' });
    expect(forgotten).toMatchObject({ status: 200, body: { agentId: 'root', forgotten: fact?.id } });
    const again = await call<ErrorBody>(url, `/api/agents/root/memory/facts/${fact?.id ?? ''}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'unknown_fact', field: 'factId' });
    expect((await call<MemoryView>(url, '/api/agents/root/memory')).body.counts.l4).toBe(1);
  });

  it('refuses a body with bad items naming each, stores nothing, and refuses an unknown agent and a bad fact id', async () => {
    const { url } = await served({ memory: true });
    const items = [{ text: 'fine' }, { kind: 'turn', text: 'no speaker' }, { text: 'x'.repeat(600) }, { text: 'ok', colour: 'red' }];
    const refused = await call<ErrorBody>(url, '/api/agents/root/memory', { json: { items } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_input');
    expect(refused.body.error.message).toContain('items[1].speaker');
    expect(refused.body.error.message).toContain('items[3]');
    expect((await call<MemoryView>(url, '/api/agents/root/memory')).body.counts.l4).toBe(0);

    // Past maxFactChars: named by its item, since the schema cannot know the store's limit.
    const long = await call<ErrorBody>(url, '/api/agents/root/memory', { json: { items: [{ text: 'fine' }, { text: 'x'.repeat(600) }] } });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/items\[1\]\.text: is 600 characters, more than maxFactChars \(500\)/);
    expect((await call<MemoryView>(url, '/api/agents/root/memory')).body.counts.l4).toBe(0);

    expect((await call<ErrorBody>(url, '/api/agents/root/memory', { json: { facts: [] } })).status).toBe(400);
    const unknown = await call<ErrorBody>(url, '/api/agents/nobody/memory', { json: { items: [{ text: 'hi' }] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_agent', field: 'id' });
    expect((await call<ErrorBody>(url, '/api/agents/root/memory/facts/nope', { method: 'DELETE' })).status).toBe(400);
  });
});

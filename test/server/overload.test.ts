import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/testing.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';
import { recordBus, until } from '../support/runtimeFixture.js';

const served = serverPerTest();

describe('overload is refused at intake', () => {
  it('a submit past the mailbox limit is 429 mailbox_full with Retry-After, and no Task acknowledged 201 is rejected later', async () => {
    // The first Task's model call hangs, so everything after it in its session waits in root's mailbox.
    const { rt, url } = await served({ model: new ScriptedModel([{ hang: true }]), runtime: { mailboxLimit: 2 } });
    const seen = recordBus(rt);
    const first = await call<{ sessionId: string }>(url, '/api/submit', { json: { text: 'hang' } });
    const { sessionId } = first.body;
    expect(first.status).toBe(201);
    await until(() => rt.agent('root')?.state === 'running.turn.thinking', 'the first turn');

    // Five at once: two fit (counted while they are still being written), three are refused.
    const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => call(url, '/api/submit', { json: { text: `job ${i}`, sessionId } })));
    const accepted = replies.filter((reply) => reply.status === 201);
    const refused = replies.filter((reply) => reply.status === 429);
    expect([accepted.length, refused.length]).toEqual([2, 3]);
    for (const reply of refused) {
      expect(reply.headers.get('retry-after')).toBe('1');
      expect(reply.body).toMatchObject({ error: { code: 'mailbox_full', field: null } });
      expect(JSON.stringify(reply.body)).toContain('mailboxLimit');
    }
    // The same refusal through /api/send.
    const sent = await call(url, '/api/send', { json: { agentId: 'root', text: 'one more', sessionId } });
    expect([sent.status, sent.headers.get('retry-after')]).toEqual([429, '1']);

    expect(rt.agent('root')?.queued).toBe(2);
    expect(seen.filter((task) => task.status === 'rejected')).toEqual([]);
  });

  it('while shutting down, intake answers 503 intake_closed with Retry-After', async () => {
    const { rt, url } = await served({ memory: true });
    const stopping = rt.shutdown({ drainTimeoutMs: 0 });
    const refused = await call(url, '/api/submit', { json: { text: 'too late' } });
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '5']);
    expect(refused.body).toMatchObject({ error: { code: 'intake_closed' } });
    await stopping;
  });
});

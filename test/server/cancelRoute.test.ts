import { describe, expect, it } from 'vitest';
import { Gates, commandModel } from '../support/a2aSociety.js';
import { serverPerTest } from '../support/httpServerFixture.js';

const serve = serverPerTest();

describe('POST /api/tasks/:taskId/cancel', () => {
  it('cancels a task an agent works on (its model call aborted), then answers 404 unknown_task for it', async () => {
    const gates = new Gates();
    const { url, rt } = await serve({ memory: true, model: commandModel(gates) });
    const taskId = await rt.submit('hold model http');
    await gates.untilHeld('http');
    const cancel = (body: unknown) =>
      fetch(`${url}/api/tasks/${taskId}/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const canceled = await cancel({ reason: 'not needed' });
    expect(canceled.status).toBe(200);
    expect(await canceled.json()).toEqual({ taskId, canceled: true });
    await gates.untilAborted('http');
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).toMatchObject({ status: 'canceled', error: { message: 'canceled by user: not needed' } });
    const again = await cancel({});
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('unknown_task');
    expect((await cancel({ reason: '' })).status).toBe(400);
  });
});

import { describe, expect, it } from 'vitest';
import { taskText } from '../../src/task/index.js';
import { type Served, answered, call, serve } from '../support/httpServerFixture.js';
import { quietRuntime } from '../support/runtimeFixture.js';
import { lastToolResult, scriptByRole } from '../support/scriptByRole.js';

// A Task may be far longer than a memory search's query may be (intake takes 100,000 characters,
// `maxQueryChars` is 4,000): its turn searches with a query built from it, and never fails for it.

const longRequest = (chars: number): string => `please write a haiku about rain ${'and the sound of rain on the roof '.repeat(chars / 30)}`.slice(0, chars);

describe('a Task longer than a memory query', () => {
  it('is answered, and a fact stated at its end is found for it', async () => {
    const { rt, model } = await quietRuntime({
      steps: [
        { toolCalls: [{ name: 'remember', arguments: { text: 'The ferry to the island leaves at seven.', scope: 'agent' } }] },
        { text: 'noted' },
        { text: 'seven' },
      ],
    });
    await rt.waitForAnswer(await rt.submit('remember the ferry time'), { timeoutMs: 10_000 });
    const text = `${longRequest(5000)} When does the ferry to the island leave?`;
    const answer = await rt.waitForAnswer(await rt.submit(text), { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
    expect(
      model.requests
        .at(-1)
        ?.messages.map((message) => message.content)
        .join('\n'),
    ).toContain('The ferry to the island leaves at seven.');
    await rt.shutdown();
  });

  it('is answered when a parent delegates it to a child', async () => {
    const task = longRequest(6000);
    const script = scriptByRole({
      root: [
        { toolCalls: [{ name: 'create_role', arguments: { name: 'poet', prompt: 'You write.' } }] },
        { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'poet' } }] },
        (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task } }] }),
        (request) => ({ text: `the poet said: ${JSON.stringify(lastToolResult(request))}` }),
      ],
      poet: [{ text: 'rain on the roof' }],
    });
    const { rt } = await quietRuntime({ steps: Array.from({ length: 5 }, () => script.reply) });
    const answer = await rt.waitForAnswer(await rt.submit('ask a poet'), { timeoutMs: 10_000 });
    expect(answer.status).toBe('completed');
    expect(taskText(answer)).toContain('rain on the roof');
    expect(script.remaining()).toEqual({ root: 0, poet: 0 });
    await rt.shutdown();
  });

  it('is accepted and answered over HTTP, not accepted and then failed', async () => {
    const served: Served = await serve();
    try {
      const submitted = await call<{ taskId: string }>(served.url, '/api/submit', { json: { text: `${longRequest(4500)}!` } });
      expect(submitted.status).toBe(201);
      expect((await answered(served.rt, submitted.body.taskId)).status).toBe('completed');
    } finally {
      await served.close();
    }
  });
});

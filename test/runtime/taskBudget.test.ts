import { describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../src/testing.js';
import type { ChatDelta } from '../../src/llm/index.js';
import { echoTool, quietRuntime, until } from '../support/runtimeFixture.js';
import { internalsOf } from '../../src/runtime/internals.js';

/** A reply that calls echo and reports the tokens it used, as a provider's stream does. */
const echoUsing = (id: string, promptTokens: number, completionTokens: number): { chunks: ChatDelta[] } => ({
  chunks: [
    { type: 'tool_call', index: 0, id, name: 'echo', arguments: JSON.stringify({ text: id }) },
    { type: 'finish', reason: 'tool_calls', usage: { promptTokens, completionTokens } },
  ],
});

describe("a Task's budget", () => {
  it('ends the turn with token_budget once its model calls used more than maxTaskTokens, and the agent takes its next Task', async () => {
    const { rt, model } = await quietRuntime({
      maxTaskTokens: 100,
      tools: [echoTool],
      steps: [echoUsing('a', 50, 10), echoUsing('b', 30, 20), { text: 'next one done' }],
    });
    const answer = await rt.waitForAnswer(await rt.submit('use many tokens'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('failed');
    expect(answer.error?.code).toBe('token_budget');
    expect(answer.error?.message).toContain('used 110 tokens, past its budget of 100 (maxTaskTokens)');
    // The second reply's tool call was not run: the turn ended on its token count.
    expect(model.requests).toHaveLength(2);
    const next = await rt.waitForAnswer(await rt.submit('again'), { timeoutMs: 5_000 });
    expect(next).toMatchObject({ status: 'completed', result: { text: 'next one done' } });
    await rt.shutdown();
  });

  it('ends the turn with time_budget once it ran maxTaskMs on the runtime clock, aborting the model call in flight', async () => {
    const clock = new SimulatedClock();
    const { rt, model } = await quietRuntime({ clock, maxTaskMs: 60_000, steps: [{ hang: true }, { text: 'next one done' }] });
    const taskId = await rt.submit('take forever');
    // The model call is in flight once its context is built from memory.
    await until(() => model.requests.length === 1, 'the model call');
    clock.advance(59_999);
    expect(rt.agent('root')?.state).toBe('running.turn.thinking');
    clock.advance(1);
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(answer.status).toBe('failed');
    expect(answer.error?.code).toBe('time_budget');
    expect(answer.error?.message).toContain('ran past its budget of 60000 ms (maxTaskMs)');
    const next = await rt.submit('again');
    await until(() => internalsOf(rt).user.answerTo(next) !== undefined, 'the next answer');
    expect(internalsOf(rt).user.answerTo(next)).toMatchObject({ status: 'completed', result: { text: 'next one done' } });
    // Each turn's timer is cleared when it ends: none is left behind, only the memory compactor's sweep.
    expect(clock.pending).toBe(1);
    await rt.shutdown();
  });
});

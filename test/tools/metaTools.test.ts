import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/llm/index.js';
import { summaryHeader } from '../../src/context/index.js';
import { Actions } from '../../src/task/index.js';
import { echoTool, quietRuntime, recordBus, tick } from '../support/runtimeFixture.js';

// compress_context and create_plan end to end: the real runtime, a scripted model, and what the
// model sees on its next call.

const echo = (text: string) => ({ toolCalls: [{ name: 'echo', arguments: { text } }] });

/** Each tool message follows, over its siblings only, the assistant message that made its call. */
function orphans(messages: readonly ChatMessage[]): number[] {
  return messages.flatMap((message, i) => {
    if (message.role !== 'tool') return [];
    let owner = i - 1;
    while (messages[owner]?.role === 'tool') owner--;
    const candidate = messages[owner];
    return candidate?.role === 'assistant' && candidate.toolCalls.some((call) => call.id === message.toolCallId) ? [] : [i];
  });
}

describe('compress_context, end to end', () => {
  it("the next model call sees [system prompt, the turn's prompt, summary, last N steps (whole), the compress call, its result]", async () => {
    const { rt, model } = await quietRuntime({
      tools: [echoTool],
      steps: [
        echo('a'),
        echo('b'),
        { toolCalls: [{ name: 'compress_context', arguments: { summary: 'User wants haiku; a and b echoed.', keepRecent: 3 } }] },
        { text: 'done' },
      ],
    });
    const answer = await rt.waitForAnswer(await rt.submit('first'), { timeoutMs: 5_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'done' } });

    // Before: [system, prompt, call a, result a, call b, result b].
    const before = model.requests[2]?.messages ?? [];
    expect(before).toHaveLength(6);
    const after = model.requests[3]?.messages ?? [];
    expect(after.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(after[2]).toEqual({ role: 'system', content: `${summaryHeader}\nUser wants haiku; a and b echoed.` });
    // The last 3 would start on "result a": the window reaches back to "call a", so all four stay.
    expect(after.slice(3, 7)).toEqual(before.slice(2));
    const call = after[7];
    const result = after[8];
    expect(after).toHaveLength(9);
    expect(call?.role === 'assistant' ? call.toolCalls.map((toolCall) => toolCall.name) : call).toEqual(['compress_context']);
    expect(result).toMatchObject({ role: 'tool', name: 'compress_context', toolCallId: call?.role === 'assistant' ? call.toolCalls[0]?.id : '' });
    expect(JSON.parse(result?.content ?? '')).toEqual({ removed: 0, kept: 6, messages: 7 });
    expect(orphans(after)).toEqual([]);
    model.assertUsedUp();
    await rt.shutdown();
  });

  it('keeps the last N steps whole: a window that would start on a tool result reaches back to its call', async () => {
    const { rt, model } = await quietRuntime({
      tools: [echoTool],
      steps: [echo('a'), echo('b'), { toolCalls: [{ name: 'compress_context', arguments: { summary: 'S', keepRecent: 1 } }] }, { text: 'done' }],
    });
    await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 5_000 });
    const before = model.requests[2]?.messages ?? [];
    const after = model.requests[3]?.messages ?? [];
    // The last 1 is "result b": the window reaches back to "call b"; "call a" and "result a" go.
    expect(after.map((message) => message.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool', 'assistant', 'tool']);
    expect(after.slice(3, 5)).toEqual(before.slice(4));
    expect(JSON.parse(after[6]?.content ?? '')).toEqual({ removed: 2, kept: 4, messages: 5 });
    expect(orphans(after)).toEqual([]);
    await rt.shutdown();
  });

  it('with keepRecent 0 and another call in the same step, keeps only that step and all its results', async () => {
    const { rt, model } = await quietRuntime({
      tools: [echoTool],
      steps: [
        echo('a'),
        {
          toolCalls: [
            { name: 'compress_context', arguments: { summary: 'S', keepRecent: 0 } },
            { name: 'echo', arguments: { text: 'z' } },
          ],
        },
        { text: 'done' },
      ],
    });
    await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 5_000 });
    const after = model.requests[2]?.messages ?? [];
    expect(after.map((message) => message.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool', 'tool']);
    expect(after.slice(4).map((message) => (message.role === 'tool' ? message.name : ''))).toEqual(['compress_context', 'echo']);
    expect(JSON.parse(after[4]?.content ?? '')).toEqual({ removed: 2, kept: 2, messages: 3 });
    expect(orphans(after)).toEqual([]);
    await rt.shutdown();
  });

  it('refuses a blank summary, and the conversation is left as it was', async () => {
    const { rt, model } = await quietRuntime({
      steps: [{ toolCalls: [{ name: 'compress_context', arguments: { summary: '  ' } }] }, { text: 'ok' }],
    });
    await rt.waitForAnswer(await rt.submit('go'), { timeoutMs: 5_000 });
    const after = model.requests[1]?.messages ?? [];
    expect(after.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(after[3]?.content).toContain('summary: must not be blank');
    await rt.shutdown();
  });
});

describe('create_plan, end to end', () => {
  it('records each step as a plan.step Task to the caller, under the current Task, in order, and starts no turn for them', async () => {
    const steps = [{ title: 'outline' }, { title: 'draft', detail: 'three lines' }, { title: 'polish' }];
    const { rt, model } = await quietRuntime({
      steps: [{ toolCalls: [{ name: 'create_plan', arguments: { goal: 'a haiku', steps } }] }, { text: 'planned' }],
    });
    const seen = recordBus(rt);
    const taskId = await rt.submit('write a haiku');
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 5_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'planned' } });

    const planSteps = seen.filter((task) => task.action === Actions.planStep);
    expect(planSteps.map((task) => task.parameters)).toEqual([
      { goal: 'a haiku', index: 0, title: 'outline', detail: null },
      { goal: 'a haiku', index: 1, title: 'draft', detail: 'three lines' },
      { goal: 'a haiku', index: 2, title: 'polish', detail: null },
    ]);
    for (const task of planSteps) {
      expect(task).toMatchObject({ from: 'root', to: 'root', status: 'submitted', parentId: taskId, sessionId: answer.sessionId });
    }
    const toolResult = model.requests[1]?.messages.at(-1);
    expect(toolResult).toMatchObject({ role: 'tool', name: 'create_plan' });
    expect(JSON.parse(toolResult?.content ?? '')).toEqual({
      planId: taskId,
      steps: planSteps.map((task, index) => ({ taskId: task.id, index, title: steps[index]?.title })),
    });

    // No turn for a plan step: no further model call, no reply to any step, nothing queued.
    for (let i = 0; i < 20; i++) await tick();
    expect(model.requests).toHaveLength(2);
    const stepIds = new Set(planSteps.map((task) => task.id));
    expect(seen.filter((task) => stepIds.has(task.id) && task.status !== 'submitted')).toEqual([]);
    expect(rt.agent('root')).toMatchObject({ state: 'running.idle', queued: 0 });
    model.assertUsedUp();
    await rt.shutdown();
  });

  it('refuses an empty plan or more than 50 steps, publishing nothing', async () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ title: `s${i}` }));
    const { rt, model } = await quietRuntime({
      steps: [
        {
          toolCalls: [
            { name: 'create_plan', arguments: { goal: 'g', steps: [] } },
            { name: 'create_plan', arguments: { goal: 'g', steps: many } },
          ],
        },
        { text: 'ok' },
      ],
    });
    const seen = recordBus(rt);
    await rt.waitForAnswer(await rt.submit('plan'), { timeoutMs: 5_000 });
    const results = model.requests[1]?.messages.slice(-2).map((message) => message.content) ?? [];
    expect(results).toHaveLength(2);
    for (const content of results) expect(content).toMatch(/invalid arguments for create_plan: steps: /);
    expect(seen.filter((task) => task.action === Actions.planStep)).toEqual([]);
    await rt.shutdown();
  });
});

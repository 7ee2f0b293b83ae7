import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { sequentialIds } from '../../src/ids.js';
import type { ChatMessage } from '../../src/llm/index.js';
import { closeDanglingCalls, resumePoint } from '../../src/runtime/agent/resume.js';
import { createTask, taskAsPrompt } from '../../src/task/index.js';

const task = createTask({ from: 'user', to: 'clerk-1', action: 'execute', parameters: { text: 'count' } }, { ids: sequentialIds(), clock: systemClock });
const system: ChatMessage = { role: 'system', content: 'You count.' };
const prompt: ChatMessage = { role: 'user', content: taskAsPrompt(task) };
const call = (id: string, n: number) => ({ id, name: 'tally', arguments: JSON.stringify({ n }) });
const reply = (...calls: ReturnType<typeof call>[]): ChatMessage => ({ role: 'assistant', content: '', toolCalls: calls });
const result = (id: string): ChatMessage => ({ role: 'tool', toolCallId: id, name: 'tally', content: 'ok' });

describe('resumePoint', () => {
  it('is null when the turn never began, or its prompt is no longer the last user message', () => {
    expect(resumePoint([system], task)).toBeNull();
    expect(resumePoint([system, prompt, reply(call('a', 1)), result('a'), { role: 'user', content: 'something else' }], task)).toBeNull();
  });

  it('repeats the model call when only the prompt was stored', () => {
    expect(resumePoint([system, prompt], task)).toEqual({ step: 0, done: [], unanswered: [], lastCalls: [] });
  });

  it('runs only the calls whose results were not stored, at the step that asked for them', () => {
    const messages = [system, prompt, reply(call('a', 1)), result('a'), reply(call('b', 2), call('c', 3)), result('c')];
    expect(resumePoint(messages, task)).toEqual({
      step: 1,
      done: [call('a', 1), call('c', 3)],
      unanswered: [call('b', 2)],
      lastCalls: [call('b', 2), call('c', 3)],
    });
  });

  it('after a complete tool step, goes on with the next model call', () => {
    expect(resumePoint([system, prompt, reply(call('a', 1)), result('a')], task)).toEqual({
      step: 1,
      done: [call('a', 1)],
      unanswered: [],
      lastCalls: [call('a', 1)],
    });
  });

  it('gives back a final answer that was stored but never sent', () => {
    const messages = [system, prompt, reply(call('a', 1)), result('a'), { role: 'assistant', content: 'three', toolCalls: [] } as ChatMessage];
    expect(resumePoint(messages, task)).toMatchObject({ answer: 'three', unanswered: [] });
  });
});

describe('closeDanglingCalls', () => {
  it('answers the calls at the end of a conversation that have no result', () => {
    expect(closeDanglingCalls([system, prompt, reply(call('a', 1), call('b', 2)), result('a')], 'restarted')).toEqual([
      { role: 'tool', toolCallId: 'b', name: 'tally', content: 'not run: restarted' },
    ]);
  });

  it('leaves a conversation alone when nothing dangles at its end', () => {
    expect(closeDanglingCalls([system, prompt, reply(call('a', 1)), result('a')], 'x')).toEqual([]);
    expect(closeDanglingCalls([system, prompt], 'x')).toEqual([]);
    expect(closeDanglingCalls([system, reply(call('a', 1)), { role: 'user', content: 'moved on' }], 'x')).toEqual([]);
  });
});

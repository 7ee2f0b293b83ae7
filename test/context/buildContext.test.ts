import { describe, expect, it } from 'vitest';
import { type ContextSources, buildContext } from '../../src/context/index.js';
import { ValidationError } from '../../src/errors.js';
import { type ChatMessage, taskAsPrompt } from '../../src/task/index.js';
import { contents, realTokens } from '../support/contextChecks.js';
import { SessionTasks } from '../support/sessionTasks.js';

const tasks = new SessionTasks();
const rolePrompt = 'You are root, the agent that answers the user.';

function base(overrides: Partial<ContextSources> = {}): ContextSources {
  return { agentId: 'root', sessionId: 's1', rolePrompt, turn: [{ role: 'user', content: 'the current question' }], ...overrides };
}

describe('buildContext: what goes in, in which order', () => {
  it('puts role prompt, inherited context, facts, summaries, L2, L1 and the turn in that order, and counts their real tokens', () => {
    const [oldRequest, oldAnswer] = tasks.exchange('user', 'root', 's1', 'an important question', 'an important answer');
    const [request, answer] = tasks.exchange('user', 'root', 's1', 'a recent question', 'a recent answer');
    const turn: ChatMessage[] = [{ role: 'user', content: 'the current question' }];
    const { messages, tokens, report } = buildContext(
      base({
        inherited: 'the parent says: be brief',
        retrieval: [{ fact: { text: 'the user lives in Lisbon', scope: 'agent', sessionId: null }, similarity: 0.9 }],
        summaries: [{ text: 'we talked about rain', sessionId: 's1' }],
        important: [oldRequest, oldAnswer],
        recent: [request, answer],
        turn,
      }),
    );
    expect(messages).toEqual([
      { role: 'system', content: rolePrompt },
      { role: 'system', content: '[context from the agent that delegated this task to you]\nthe parent says: be brief' },
      {
        role: 'system',
        content: '[facts from your long-term memory that may bear on this task, most relevant first]\n- the user lives in Lisbon (relevance 0.90)\n',
      },
      { role: 'system', content: '[summaries of earlier work in this session, oldest first]\n- we talked about rain\n' },
      { role: 'user', content: taskAsPrompt(oldRequest) },
      { role: 'assistant', content: 'an important answer', toolCalls: [] },
      { role: 'user', content: taskAsPrompt(request) },
      { role: 'assistant', content: 'a recent answer', toolCalls: [] },
      ...turn,
    ]);
    expect(messages.at(-1)).toBe(turn[0]);
    expect(tokens).toBe(realTokens(messages));
    expect(report.tokens).toBe(tokens);
    expect(report.sources.recent).toMatchObject({ given: 2, kept: 2, leftOut: 0 });
  });

  it("skips memory's copies of the Task the turn answers: its prompt is in the turn already", () => {
    const [previous, previousAnswer] = tasks.exchange('user', 'root', 's1', 'earlier', 'done');
    const current = tasks.request('user', 'root', 's1', 'now this');
    const { messages, report } = buildContext(
      base({ currentTaskId: current.id, recent: [previous, previousAnswer, current], turn: [{ role: 'user', content: taskAsPrompt(current) }] }),
    );
    expect(messages.filter((message) => message.content === taskAsPrompt(current))).toHaveLength(1);
    expect(report.skipped.current).toBe(1);
  });

  it('drops and counts Tasks, summaries and facts of another session; keeps facts shared across sessions', () => {
    const [mine, myAnswer] = tasks.exchange('user', 'root', 's1', 'my secret is 1234', 'noted');
    const [theirs, theirAnswer] = tasks.exchange('user', 'root', 's2', 'their secret is 9876', 'noted too');
    const { messages, report } = buildContext(
      base({
        recent: [mine, theirs, myAnswer, theirAnswer],
        important: [theirs],
        summaries: [
          { text: 'mine: about 1234', sessionId: 's1' },
          { text: 'theirs: about 9876', sessionId: 's2' },
        ],
        retrieval: [
          { fact: { text: 'session fact 9876', scope: 'session', sessionId: 's2' }, similarity: 0.99 },
          { fact: { text: 'session fact 1234', scope: 'session', sessionId: 's1' }, similarity: 0.5 },
          { fact: { text: 'agent fact: the user is called Ana', scope: 'agent', sessionId: null }, similarity: 0.4 },
        ],
      }),
    );
    expect(contents(messages)).not.toContain('9876');
    expect(contents(messages)).toContain('my secret is 1234');
    expect(contents(messages)).toContain('agent fact: the user is called Ana');
    expect(report.otherSession).toEqual({ tasks: 3, facts: 1, summaries: 1 });
  });

  it('keeps the most similar facts first when not all fit', () => {
    const retrieval = Array.from({ length: 40 }, (_, i) => ({
      fact: { text: `fact number ${i} about something the agent once learned`, scope: 'agent' as const, sessionId: null },
      similarity: i / 40,
    }));
    const { messages, report } = buildContext(base({ retrieval }), {
      tokens: 200,
      shares: { retrieval: 1, recent: 0, important: 0, summaries: 0, inherited: 0 },
    });
    const block = messages[1]?.content ?? '';
    expect(block.split('\n')[1]).toBe('- fact number 39 about something the agent once learned (relevance 0.97)');
    expect(report.sources.retrieval.kept).toBeGreaterThan(0);
    expect(report.sources.retrieval.kept + report.sources.retrieval.leftOut).toBe(40);
    expect(block).not.toContain('fact number 0 ');
    expect(realTokens(messages)).toBeLessThanOrEqual(200);
  });

  it("shows the parent's messages as lines (tool calls named, never as tool messages), the newest kept", () => {
    const inherited: ChatMessage[] = [
      ...Array.from({ length: 30 }, (_, i): ChatMessage => ({ role: 'user', content: `old parent message ${i} with some words in it` })),
      { role: 'assistant', content: 'let me look', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: 'rain' },
    ];
    const { messages, report } = buildContext(base({ inherited }), {
      tokens: 250,
      shares: { inherited: 1, recent: 0, important: 0, summaries: 0, retrieval: 0 },
    });
    const block = messages[1]?.content ?? '';
    expect(messages.every((message) => message.role !== 'tool')).toBe(true);
    expect(block).toContain('assistant: let me look [called get_weather({"city":"Lisbon"})]\ntool get_weather: rain\n');
    expect(block).toContain(`[${report.sources.inherited.leftOut} earlier messages of the parent's context left out]`);
    expect(report.sources.inherited.leftOut).toBeGreaterThan(0);
    expect(realTokens(messages)).toBeLessThanOrEqual(250);
  });

  it("cuts the parent's text to fit, keeping its start, and says so", () => {
    const inherited = Array.from({ length: 200 }, (_, i) => `Sentence ${i} of the brief.`).join(' ');
    const { messages, report } = buildContext(base({ inherited }), {
      tokens: 300,
      shares: { inherited: 1, recent: 0, important: 0, summaries: 0, retrieval: 0 },
    });
    const block = messages[1]?.content ?? '';
    expect(block.startsWith('[context from the agent that delegated this task to you]\nSentence 0 of the brief. Sentence 1')).toBe(true);
    expect(block.endsWith('\n[… the rest was cut to fit the context budget]')).toBe(true);
    expect(report.sources.inherited).toMatchObject({ kept: 1, cut: true });
    expect(realTokens(messages)).toBeLessThanOrEqual(300);
    expect(report.tokens).toBe(realTokens(messages));
  });
});

describe('buildContext: bad input is refused, naming what is wrong', () => {
  it('refuses a bad budget', () => {
    expect(() => buildContext(base(), { tokens: 10 })).toThrow(/context\.budget\.tokens/);
    expect(() => buildContext(base(), { shares: { recent: 0.9, important: 0.9 } })).toThrow(/context\.budget\.shares: the shares must add up to at most 1/);
    expect(() => buildContext(base(), { shares: { recent: -0.1 } })).toThrow(/context\.budget\.shares\.recent/);
    expect(() => buildContext(base(), { tokens: 1000, extra: 1 } as never)).toThrow(ValidationError);
  });

  it('refuses bad sources', () => {
    expect(() => buildContext(base({ sessionId: 'no spaces allowed' }))).toThrow(/context\.sources\.sessionId/);
    expect(() => buildContext(base({ turn: [{ role: 'robot', content: 'x' } as never] }))).toThrow(/context\.sources\.turn\[0\]/);
    expect(() => buildContext(base({ recent: 'not a list' as never }))).toThrow(/context\.sources\.recent: must be an array of Tasks/);
    expect(() => buildContext(base({ retrieval: [{ fact: { text: 'x', scope: 'agent', sessionId: null }, similarity: Number.NaN }] }))).toThrow(
      /context\.sources\.retrieval\[0\]\.similarity/,
    );
  });
});

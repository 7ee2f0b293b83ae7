import { describe, expect, it } from 'vitest';
import { type ContextSources, TokenCounter, buildContext, contextBudget } from '../../src/context/index.js';
import { type ChatMessage, type Task, taskAsPrompt, taskText } from '../../src/task/index.js';
import { realTokens } from '../support/contextChecks.js';
import { SessionTasks } from '../support/sessionTasks.js';

const tasks = new SessionTasks();

/** `n` exchanges of the user with root in session s1, oldest first: 2n Tasks. */
function history(n: number, label: string): Task[] {
  return Array.from({ length: n }, (_, i) =>
    tasks.exchange('user', 'root', 's1', `${label} question ${i}: what about the weather?`, `${label} answer ${i}: rain`),
  ).flat();
}

function summaries(n: number) {
  return Array.from({ length: n }, (_, i) => ({ text: `summary ${i}: the user asked about a city and got an answer`, sessionId: 's1' }));
}

function base(overrides: Partial<ContextSources> = {}): ContextSources {
  return { agentId: 'root', sessionId: 's1', rolePrompt: 'You are root.', turn: [{ role: 'user', content: 'now' }], ...overrides };
}

describe('buildContext: budget shares', () => {
  it('has documented defaults: 16,000 tokens; recent 0.4, important 0.2, summaries 0.15, retrieval 0.15, inherited 0.1', () => {
    expect(contextBudget()).toEqual({
      tokens: 16_000,
      shares: { recent: 0.4, important: 0.2, summaries: 0.15, retrieval: 0.15, inherited: 0.1 },
      warnAtTurnShare: 0.5,
    });
    expect(contextBudget({ shares: { recent: 0.3 } }).shares.important).toBe(0.2);
  });

  it('gives each source its share of what the role prompt and the turn leave, when every source has more than that', () => {
    const budget = { tokens: 2_000, shares: { recent: 0.5, important: 0.3, summaries: 0.2, retrieval: 0, inherited: 0 } };
    const { messages, report } = buildContext(
      base({ recent: history(100, 'recent'), important: history(100, 'important'), summaries: summaries(200) }),
      budget,
    );
    const available = 2_000 - report.rolePromptTokens - report.turnTokens - 3 - report.pinnedTokens;
    // Each fits whole items in its share; what is left below one item flows on, so a source's
    // tokens land within one item (a Task or a line: under 40 tokens here) of its share (the recent
    // Tasks' besides the newest exchange, set aside first).
    for (const [source, share] of [
      ['recent', 0.5],
      ['important', 0.3],
      ['summaries', 0.2],
    ] as const) {
      expect(report.sources[source].tokens).toBeLessThanOrEqual(report.sources[source].allotted);
      const ownShare = report.sources[source].tokens - (source === 'recent' ? report.pinnedTokens : 0);
      expect(Math.abs(ownShare - share * available)).toBeLessThan(40);
      expect(report.sources[source].leftOut).toBeGreaterThan(0);
    }
    expect(report.tokens).toBe(realTokens(messages));
    expect(report.tokens).toBeLessThanOrEqual(2_000);
  });

  it('lets unused shares flow to the recent Tasks first, then on in order', () => {
    const budget = { tokens: 2_000, shares: { recent: 0.2, important: 0, summaries: 0.2, retrieval: 0.3, inherited: 0.3 } };
    const { messages, report } = buildContext(base({ recent: history(100, 'recent'), summaries: summaries(200) }), budget);
    const available = 2_000 - report.rolePromptTokens - report.turnTokens - 3;
    // Retrieval and inherited had nothing: their 60% went to the recent Tasks, not to the summaries.
    expect(report.sources.summaries.tokens).toBeLessThanOrEqual(Math.floor(0.2 * available));
    expect(report.sources.recent.tokens).toBeGreaterThan(0.75 * available);
    expect(report.tokens).toBeLessThanOrEqual(2_000);
    expect(report.tokens).toBe(realTokens(messages));
  });

  it('leaves out the oldest Tasks first, whole, with a note saying how many', () => {
    const recent = history(50, 'recent');
    const { messages, report } = buildContext(base({ recent }), { tokens: 600 });
    const { kept, leftOut } = report.sources.recent;
    expect(kept + leftOut).toBe(100);
    expect(leftOut).toBeGreaterThan(0);
    const note = messages.findIndex((message) => message.content === `[memory: ${leftOut} earlier messages of this session are left out here]`);
    expect(note).toBe(1);
    // After the note: exactly the newest `kept` Tasks, oldest first.
    expect(messages.slice(2, 2 + kept).map((message) => message.content)).toEqual(
      recent.slice(100 - kept).map((task) => (task.status === 'submitted' ? taskAsPrompt(task) : taskText(task))),
    );
  });

  it('sets the newest exchange aside before the shares: it is there even when the recent share is 0', () => {
    const recent = history(20, 'recent');
    const shares = { recent: 0, important: 1, summaries: 0, retrieval: 0, inherited: 0 };
    const { messages, report } = buildContext(base({ recent, important: history(100, 'important') }), { tokens: 1_000, shares });
    const [lastRequest, lastAnswer] = recent.slice(-2) as [Task, Task];
    const counter = new TokenCounter();
    const shown = messages.slice(-3, -1);
    expect(shown.map((message) => message.content)).toEqual([
      `[from user · task ${lastRequest.id} · execute]\nrecent question 19: what about the weather?`,
      taskText(lastAnswer),
    ]);
    expect(report.pinnedTokens).toBe(shown.reduce((sum, message) => sum + counter.message(message), 0));
    expect(report.sources.important.leftOut).toBeGreaterThan(0);
  });

  it('keeps the role prompt and every step of the turn even past the budget, adds nothing else, and says so', () => {
    const turn: ChatMessage[] = Array.from({ length: 30 }, (_, i) => ({ role: 'user', content: `step ${i} of a long turn with plenty of words in it` }));
    const { messages, report } = buildContext(base({ turn, recent: history(5, 'recent'), summaries: summaries(5) }), { tokens: 100 });
    expect(messages).toEqual([{ role: 'system', content: 'You are root.' }, ...turn]);
    expect(report.overBudget).toBe(true);
    expect(report.tokens).toBe(realTokens(messages));
    expect(report.tokens).toBeGreaterThan(100);
    expect(report.sources.recent.leftOut).toBe(10);
  });
});

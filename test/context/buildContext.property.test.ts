import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildContext, compressTurnSteps } from '../../src/context/index.js';
import { type ChatMessage, type Task, taskText } from '../../src/task/index.js';
import { type ContextSample, agentId, contextSampleArb, otherSessionMark, ownSession } from '../support/contextArbitraries.js';
import { contents, pairingViolations, realTokens } from '../support/contextChecks.js';
import { loggedSeed } from '../support/loggedSeed.js';

// The laws of issue 14's context builder, over mixed-session sources of random sizes, random
// budgets and random shares. Tokens are counted apart from the builder, with gpt-tokenizer's own
// chat encoding (see `realTokens`). fast-check prints the seed of a failure: FC_SEED=<seed> replays it.

/** The Tasks of the newest L1 exchange the builder must keep when it fits: from the last request root received to the end. */
function newestExchange({ sources }: ContextSample): Task[] {
  const shown = (sources.recent ?? []).filter(
    (task) => task.sessionId === ownSession && task.id !== sources.currentTaskId && task.status !== 'working' && (task.from === agentId || task.to === agentId),
  );
  for (let i = shown.length - 1; i >= 0; i--) {
    const task = shown[i] as Task;
    if (task.status === 'submitted' && task.to === agentId && task.from !== agentId && !task.action.startsWith('agent.')) return shown.slice(i);
  }
  return shown.slice(-1);
}

/** The tag (`[e3q]`, `[e3a]`) that starts the text of a Task the arbitraries made: its request's text, or its reply's result. */
const tagOf = (task: Task): string => /^\[e\d+[qa]\]/.exec(taskText(task))?.[0] ?? '?';

describe('buildContext properties (issue 14)', () => {
  it('context for one session never contains a Task, summary or fact of another, and counts what it dropped', () => {
    fc.assert(
      fc.property(contextSampleArb, (sample) => {
        const { messages, report } = buildContext(sample.sources, { ...sample.budget, tokens: 1_000_000 });
        expect(contents(messages)).not.toContain(otherSessionMark);
        expect(report.otherSession).toEqual(sample.otherSession);
        // And with the sample's own budget, whatever it leaves out.
        expect(contents(buildContext(sample.sources, sample.budget).messages)).not.toContain(otherSessionMark);
      }),
      loggedSeed('session isolation'),
    );
  });

  it('never exceeds the token budget, unless the role prompt and the turn alone do: then they are all there is, and the report says so', () => {
    fc.assert(
      fc.property(contextSampleArb, (sample) => {
        const { messages, tokens, report } = buildContext(sample.sources, sample.budget);
        const budget = sample.budget.tokens ?? 16_000;
        expect(tokens).toBe(realTokens(messages));
        const mandatory = realTokens([{ role: 'system', content: sample.sources.rolePrompt }, ...sample.sources.turn]);
        expect(report.overBudget).toBe(mandatory > budget);
        if (report.overBudget) expect(messages.slice(1)).toEqual(sample.sources.turn);
        else expect(tokens).toBeLessThanOrEqual(budget);
      }),
      loggedSeed('token budget'),
    );
  });

  it("always keeps the turn's steps verbatim at the end, and the newest L1 exchange right before them whenever it fits", () => {
    fc.assert(
      fc.property(contextSampleArb, (sample) => {
        const { turn } = sample.sources;
        const { messages } = buildContext(sample.sources, sample.budget);
        const tail = messages.slice(messages.length - turn.length);
        tail.forEach((message, i) => expect(message).toBe(turn[i]));

        const exchange = newestExchange(sample);
        if (exchange.length === 0) return;
        const tags = exchange.map(tagOf);
        // Their cost, as the builder renders them when everything fits.
        const everything = buildContext(sample.sources, { tokens: 10_000_000 }).messages;
        const rendered = tags.map((tag) => everything.find((message) => message.content.includes(tag)) as ChatMessage);
        const cost = rendered.reduce((sum, message) => sum + realTokens([message]) - 3, 0);
        const mandatory = realTokens([{ role: 'system', content: sample.sources.rolePrompt }, ...turn]);
        if (mandatory + cost > (sample.budget.tokens ?? 16_000)) return;
        expect(messages.slice(messages.length - turn.length - rendered.length, messages.length - turn.length)).toEqual(rendered);
      }),
      loggedSeed('newest messages kept'),
    );
  });

  it('never parts a tool message from the assistant message that called it, compressed turn or not', () => {
    fc.assert(
      fc.property(contextSampleArb, fc.option(fc.nat({ max: 12 })), (sample, keepRecent) => {
        const turn = keepRecent === null ? sample.sources.turn : compressTurnSteps(sample.sources.turn, 'what happened so far', keepRecent).messages;
        const { messages } = buildContext({ ...sample.sources, turn }, sample.budget);
        expect(pairingViolations(messages)).toEqual([]);
      }),
      loggedSeed('tool messages with their calls'),
    );
  });
});

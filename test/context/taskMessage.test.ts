import { describe, expect, it } from 'vitest';
import { buildContext } from '../../src/context/index.js';
import { Actions, createTask, sequentialIds } from '../../src/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type ChatMessage, type Task, taskAsPrompt } from '../../src/task/index.js';
import { SessionTasks } from '../support/sessionTasks.js';

const session = 's1';

/** The messages the builder makes of `recent` for `agentId`, between the role prompt and the turn. */
function rendered(agentId: string, recent: readonly Task[]): ChatMessage[] {
  const { messages } = buildContext({ agentId, sessionId: session, rolePrompt: 'prompt', recent, turn: [] }, { tokens: 100_000 });
  return messages.slice(1);
}

describe('how a remembered Task reads to the agent', () => {
  const tasks = new SessionTasks();

  it("a request the agent received is the user's turn, as the turn's own prompt reads", () => {
    const request = tasks.request('user', 'root', session, 'write a haiku');
    expect(rendered('root', [request])).toEqual([{ role: 'user', content: taskAsPrompt(request) }]);
    expect(taskAsPrompt(request)).toBe(`[from user · task ${request.id} · execute]\nwrite a haiku`);
  });

  it("the agent's own reply is its own words; a delegation it sent says to whom; the reply it got says from whom", () => {
    const request = tasks.request('user', 'root', session, 'write a haiku');
    const delegated = tasks.request('root', 'poet-1', session, 'a haiku about rain');
    const poem = tasks.reply(delegated, 'Rain on the roof');
    const answer = tasks.reply(request, 'Rain on the roof');
    expect(rendered('root', [request, delegated, poem, answer])).toEqual([
      { role: 'user', content: taskAsPrompt(request) },
      { role: 'assistant', content: `[to poet-1 · task ${delegated.id} · execute]\na haiku about rain`, toolCalls: [] },
      { role: 'user', content: `[reply from poet-1 · task ${delegated.id} · completed]\nRain on the roof` },
      { role: 'assistant', content: 'Rain on the roof', toolCalls: [] },
    ]);
    // The same Tasks from the poet's side: the delegation is its request, its reply its own words.
    expect(rendered('poet-1', [request, delegated, poem, answer])).toEqual([
      { role: 'user', content: taskAsPrompt(delegated) },
      { role: 'assistant', content: 'Rain on the roof', toolCalls: [] },
    ]);
  });

  it('a failed reply says its error code and message', () => {
    const delegated = tasks.request('root', 'poet-1', session, 'a haiku');
    const failure = tasks.reply(delegated, 'the tool broke', 'failed');
    expect(rendered('root', [failure])).toEqual([{ role: 'user', content: `[reply from poet-1 · task ${delegated.id} · failed]\ntool_error: the tool broke` }]);
  });

  it('notices and notes to itself are system messages; progress, fragments and Tasks of others are not shown, and are counted', () => {
    const deps = { ids: sequentialIds(), clock: new SimulatedClock() };
    const make = (from: string, to: string, action: string, status: Task['status'], parameters: Record<string, string>) =>
      createTask({ from, to, action, status, sessionId: session, parameters }, deps);
    const spawned = make('poet-1', 'root', Actions.spawned, 'completed', { text: 'poet-1 as poet' });
    const plan = make('root', 'root', Actions.planStep, 'submitted', { text: 'step 1: ask the poet' });
    const progress = make('root', 'user', Actions.execute, 'working', {});
    const fragment = make('root', 'observer', Actions.thinking, 'working', { text: 'hm' });
    const others = make('user', 'poet-1', Actions.execute, 'submitted', { text: 'not for root' });

    const { messages, report } = buildContext(
      { agentId: 'root', sessionId: session, rolePrompt: 'prompt', recent: [spawned, plan, progress, fragment, others], turn: [] },
      { tokens: 100_000 },
    );
    expect(messages.slice(1)).toEqual([
      { role: 'system', content: `[agent.spawned from poet-1 to root]\npoet-1 as poet` },
      { role: 'system', content: `[note to self · task ${plan.id} · plan.step]\nstep 1: ask the poet` },
    ]);
    expect(report.skipped).toEqual({ progress: 2, notAddressed: 1, current: 0 });
  });

  it('renders a Task once: the same frozen message every build', () => {
    const request = tasks.request('user', 'root', session, 'hello');
    const [first] = rendered('root', [request]);
    const [again] = rendered('root', [request]);
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });
});

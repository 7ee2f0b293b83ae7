import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { DurableOrder } from '../../src/runtime/journal/durableOrder.js';
import { HeldUntilDurable } from '../../src/runtime/journal/heldUntilDurable.js';
import { type Journal, memoryJournal } from '../../src/runtime/journal/journal.js';
import { Actions, type Task, createTask, replyTo } from '../../src/task/index.js';
import { SimulatedClock, sequentialIds } from '../../src/testing.js';
import { tick } from '../support/runtimeFixture.js';

// What reaches the user waits for the store: each answer leaves once durable, in order with
// everything else, so no output shows an answer a restart would give again.

const deps = { ids: sequentialIds(), clock: new SimulatedClock() };
const unbounded = (): HeldUntilDurable => new HeldUntilDurable(Number.MAX_SAFE_INTEGER);

/** A persistent journal whose commits the test completes one at a time. */
function heldJournal(): { journal: Journal; commits: (() => void)[] } {
  const commits: (() => void)[] = [];
  const journal: Journal = { ...memoryJournal, persistent: true, durable: () => new Promise<void>((resolve) => commits.push(resolve)) };
  return { journal, commits };
}

function exchange(text: string): { working: Task; answer: Task; notice: Task } {
  const asked = createTask({ from: 'user', to: 'root', action: Actions.execute, parameters: { text } }, deps);
  return {
    working: replyTo(asked, { status: 'working' }, deps.clock),
    answer: replyTo(asked, { status: 'completed', result: { text: `re: ${text}` } }, deps.clock),
    notice: createTask({ from: 'root', to: 'user', action: Actions.message, parameters: { text: `after ${text}` } }, deps),
  };
}

describe('DurableOrder', () => {
  it('holds an answer to the user until its commit, and what came after it behind it', async () => {
    const { journal, commits } = heldJournal();
    const order = new DurableOrder(journal, new MemoryLogger(), unbounded());
    const delivered: Task[] = [];
    const first = exchange('one');
    const second = exchange('two');
    for (const task of [first.working, first.answer, first.notice, second.working, second.answer]) order.pass(task, (held) => delivered.push(held));
    // Not final: at once. The answer and everything after it wait for the store.
    expect(delivered).toEqual([first.working]);
    await tick();
    expect(commits).toHaveLength(2);
    commits[1]?.();
    await tick();
    expect(delivered).toEqual([first.working]);
    commits[0]?.();
    await tick();
    expect(delivered).toEqual([first.working, first.answer, first.notice, second.working, second.answer]);
  });

  it('asks the store for its commit only after the publish that carried the answer is over', async () => {
    const { journal, commits } = heldJournal();
    const order = new DurableOrder(journal, new MemoryLogger(), unbounded());
    order.pass(exchange('one').answer, () => undefined);
    // The turn queues the answer's log entry and its answered mark in the same synchronous publish.
    expect(commits).toHaveLength(0);
    await tick();
    expect(commits).toHaveLength(1);
  });

  it('passes everything at once when the journal keeps nothing', () => {
    const order = new DurableOrder(memoryJournal, new MemoryLogger(), unbounded());
    const delivered: Task[] = [];
    const { working, answer } = exchange('one');
    order.pass(working, (held) => delivered.push(held));
    order.pass(answer, (held) => delivered.push(held));
    expect(delivered).toEqual([working, answer]);
  });

  it('as an operator, completes only after the answers it holds', async () => {
    const { journal, commits } = heldJournal();
    const source = new Subject<Task>();
    const seen: string[] = [];
    source
      .pipe(DurableOrder.operator(journal, new MemoryLogger(), unbounded()))
      .subscribe({ next: (task) => seen.push(task.status), complete: () => seen.push('done') });
    const { working, answer } = exchange('one');
    source.next(working);
    source.next(answer);
    source.complete();
    await tick();
    expect(seen).toEqual(['working']);
    commits[0]?.();
    await tick();
    expect(seen).toEqual(['working', 'completed', 'done']);
  });

  it('lets an answer leave when the store failed, saying so', async () => {
    const logger = new MemoryLogger();
    const journal: Journal = { ...memoryJournal, persistent: true, durable: () => Promise.reject(new Error('disk full')) };
    const delivered: Task[] = [];
    new DurableOrder(journal, logger, unbounded()).pass(exchange('one').answer, (held) => delivered.push(held));
    await tick();
    expect(delivered).toHaveLength(1);
    expect(logger.entries.map((entry) => entry.message).join('\n')).toMatch(/before it was durable/);
  });

  it('counts what every order holds in one limit, refusing new work at it, and lets nothing out before its commit', async () => {
    const { journal, commits } = heldJournal();
    const limit = new HeldUntilDurable(3);
    const toUser: Task[] = [];
    const onStream: Task[] = [];
    const endpoint = new DurableOrder(journal, new MemoryLogger(), limit);
    const source = new Subject<Task>();
    source.pipe(DurableOrder.operator(journal, new MemoryLogger(), limit)).subscribe((task) => onStream.push(task));
    const first = exchange('one');
    const second = exchange('two');
    for (const task of [first.answer, second.working]) {
      endpoint.pass(task, (held) => toUser.push(held));
      source.next(task);
    }
    expect(limit.held).toBe(4);
    expect(limit.refusal()).toMatchObject({ code: 'store_behind', context: { held: 4, retryAfterSeconds: 1 } });
    expect(String(limit.refusal())).toMatch(/maxHeldUntilDurable 3/);
    await tick();
    expect([toUser, onStream]).toEqual([[], []]);
    for (const commit of commits) commit();
    await tick();
    expect([toUser, onStream]).toEqual([
      [first.answer, second.working],
      [first.answer, second.working],
    ]);
    expect(limit.held).toBe(0);
    expect(limit.refusal()).toBeNull();
  });
});

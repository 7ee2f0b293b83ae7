import { describe, expect, it } from 'vitest';
import { RequestTimeoutError, TroupeError, ValidationError } from '../../src/errors.js';
import { sequentialIds } from '../../src/ids.js';
import { type Task, createTask, replyTo } from '../../src/task/index.js';
import { busHarness, collect, flush, rejectionOf, track } from '../support/busFixture.js';
describe('EventBus.request', () => {
  it('resolves two concurrent requests to different targets with their own replies', async () => {
    const { bus, task, reply } = busHarness();
    const release: (() => void)[] = [];
    for (const target of ['poet', 'critic']) {
      bus.serve(target, (incoming) => {
        return new Promise<Task>((resolve) => {
          release.push(() => resolve(reply(incoming, 'completed', `from ${target}`)));
        });
      });
    }
    const toPoet = bus.request(task({ to: 'poet' }), { timeoutMs: 1_000 });
    const toCritic = bus.request(task({ to: 'critic' }), { timeoutMs: 1_000 });
    await flush();
    expect(bus.pendingRequests).toBe(2);

    // Answer in the opposite order to the asking.
    release[1]?.();
    release[0]?.();
    const [poetAnswer, criticAnswer] = await Promise.all([toPoet, toCritic]);

    expect(poetAnswer.result).toBe('from poet');
    expect(poetAnswer.from).toBe('poet');
    expect(criticAnswer.result).toBe('from critic');
    expect(criticAnswer.from).toBe('critic');
    expect(bus.pendingRequests).toBe(0);
  });

  it('ignores a reply from the wrong sender and delivers it normally instead', async () => {
    const { bus, task, clock } = busHarness();
    const userInbox = collect(bus.to('user'));
    const sent = task({ to: 'poet' });
    const pending = track(bus.request(sent, { timeoutMs: 1_000 }));

    const impostor = createTask(
      { id: sent.id, sessionId: sent.sessionId, from: 'critic', to: 'user', action: 'execute', status: 'completed' },
      { ids: sequentialIds(), clock },
    );
    bus.publish(impostor);
    await flush();

    expect(pending.outcome.state).toBe('pending');
    expect(userInbox).toEqual([impostor]);

    const genuine = replyTo(sent, { status: 'completed', result: 'real' }, clock);
    bus.publish(genuine);
    await flush();
    expect(pending.outcome).toEqual({ state: 'resolved', value: genuine });
  });

  it("consumes the reply: the requester's to() stream does not get it, on('*') does", async () => {
    const { bus, task, reply } = busHarness();
    const userInbox = collect(bus.to('user'));
    const everything = collect(bus.on('*'));
    bus.serve('poet', (incoming) => reply(incoming, 'completed', 'done'));
    const sent = task();

    const answer = await bus.request(sent, { timeoutMs: 1_000 });

    expect(userInbox).toEqual([]);
    expect(everything).toEqual([sent, answer]);
  });

  it("does not resolve on 'working'; the working update reaches the requester's inbox", async () => {
    const { bus, task, reply } = busHarness();
    const userInbox = collect(bus.to('user'));
    let received: Task | undefined;
    bus.subscribe({ to: 'poet' }, (incoming) => {
      received = incoming;
      bus.publish(reply(incoming, 'working'));
    });
    const pending = track(bus.request(task(), { timeoutMs: 1_000 }));
    await flush();

    expect(pending.outcome.state).toBe('pending');
    expect(userInbox.map((t) => t.status)).toEqual(['working']);
    expect(bus.pendingRequests).toBe(1);

    if (received === undefined) throw new Error('poet never received the request');
    const final = reply(received, 'completed', 'finished');
    bus.publish(final);
    await flush();
    expect(pending.outcome).toEqual({ state: 'resolved', value: final });
  });

  it('resolves when the reply is published synchronously by the handler', async () => {
    const { bus, task, reply } = busHarness();
    bus.subscribe({ to: 'poet' }, (incoming) => bus.publish(reply(incoming, 'completed')));
    const answer = await bus.request(task(), { timeoutMs: 1_000 });
    expect(answer.status).toBe('completed');
  });

  it('rejects with RequestTimeoutError when no reply comes in time (simulated clock)', async () => {
    const { bus, task, clock, reply } = busHarness();
    const userInbox = collect(bus.to('user'));
    const sent = task();
    const pending = track(bus.request(sent, { timeoutMs: 1_000 }));

    clock.advance(999);
    await flush();
    expect(pending.outcome.state).toBe('pending');

    clock.advance(1);
    await flush();
    expect(pending.outcome.state).toBe('rejected');
    const error = pending.outcome.state === 'rejected' ? pending.outcome.error : undefined;
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ code: 'request_timeout', context: { taskId: sent.id, timeoutMs: 1_000 } });
    expect(bus.pendingRequests).toBe(0);

    // A late reply is an ordinary Task now.
    const late = reply(sent, 'completed');
    bus.publish(late);
    expect(userInbox).toEqual([late]);
  });

  it('clears its timer once answered', async () => {
    const { bus, task, clock, reply } = busHarness();
    bus.serve('poet', (incoming) => reply(incoming, 'completed'));
    await bus.request(task(), { timeoutMs: 1_000 });
    expect(clock.pending).toBe(0);
  });

  it("rejects with code 'aborted' when the signal aborts", async () => {
    const { bus, task, clock } = busHarness();
    const controller = new AbortController();
    const pending = bus.request(task(), { timeoutMs: 1_000, signal: controller.signal });
    const reason = new Error('user pressed ctrl-c');

    controller.abort(reason);

    const error = await rejectionOf(pending);
    expect(error).toBeInstanceOf(TroupeError);
    expect(error).toMatchObject({ code: 'aborted', cause: reason });
    expect(bus.pendingRequests).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it("rejects with code 'aborted' at once, without publishing, when the signal is already aborted", async () => {
    const { bus, task } = busHarness();
    const everything = collect(bus.on('*'));
    const error = await rejectionOf(bus.request(task(), { timeoutMs: 1_000, signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: 'aborted' });
    expect(everything).toEqual([]);
  });

  it("rejects a second request for the same id with 'duplicate_request' and keeps the first", async () => {
    const { bus, task, reply } = busHarness();
    const sent = task();
    const first = track(bus.request(sent, { timeoutMs: 1_000 }));

    const error = await rejectionOf(bus.request(sent, { timeoutMs: 1_000 }));
    expect(error).toBeInstanceOf(TroupeError);
    expect(error).toMatchObject({ code: 'duplicate_request' });
    expect(bus.pendingRequests).toBe(1);

    const answer = reply(sent, 'completed');
    bus.publish(answer);
    await flush();
    expect(first.outcome).toEqual({ state: 'resolved', value: answer });
  });

  it('rejects an invalid Task without leaving a pending request or a timer behind', async () => {
    const { bus, task, clock } = busHarness();
    const bad = { ...JSON.parse(JSON.stringify(task())), to: 'no such id!' } as Task;

    const error = await rejectionOf(bus.request(bad, { timeoutMs: 1_000 }));

    expect(error).toBeInstanceOf(ValidationError);
    expect(bus.pendingRequests).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BusFault, EventBus, matches, parsePattern } from '../../src/bus/index.js';
import { systemClock } from '../../src/clock.js';
import { ValidationError } from '../../src/errors.js';
import { sequentialIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { type Task, type TaskStatus, createTask } from '../../src/task/index.js';
import { RecordingTransport, busHarness, collect, flush, isDeepFrozen } from '../support/busFixture.js';

describe('EventBus never changes a Task', () => {
  it('delivers a created Task as the same deep-frozen value', () => {
    const { bus, task } = busHarness();
    const seen = collect(bus.to('poet'));
    const sent = task();
    bus.publish(sent);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(sent);
    expect(isDeepFrozen(seen[0])).toBe(true);
  });

  it("delivers a frozen copy of an unfrozen valid object and leaves the caller's object unchanged", () => {
    const { bus, task } = busHarness();
    const seen = collect(bus.on('*'));
    const raw = JSON.parse(JSON.stringify(task({ parameters: { text: 'hi', nested: { n: [1, 2] } } }))) as Task;
    const snapshot = structuredClone(raw);

    bus.publish(raw);

    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(raw);
    expect(seen[0]).toEqual(snapshot);
    expect(isDeepFrozen(seen[0])).toBe(true);
    expect(Object.isFrozen(raw)).toBe(false);
    expect(Object.isFrozen(raw.parameters)).toBe(false);
    expect(Object.isFrozen(raw.parameters['nested'])).toBe(false);
    expect(raw).toEqual(snapshot);
  });

  it('deep-freezes a Task that arrives only shallowly frozen', () => {
    const { bus, task } = busHarness();
    const seen = collect(bus.to('poet'));
    const shallow = Object.freeze({ ...task(), parameters: { text: 'hi', nested: { n: 1 } } });

    bus.publish(shallow);

    expect(seen).toHaveLength(1);
    expect(isDeepFrozen(seen[0])).toBe(true);
  });

  it('validates a shallowly frozen object instead of trusting it', () => {
    const { bus, task } = busHarness();
    const seen = collect(bus.on('*'));
    const forged = Object.freeze({ ...task(), to: 'not an id' });
    expect(() => bus.publish(forged)).toThrow(ValidationError);
    expect(seen).toHaveLength(0);
  });

  it('rejects an invalid unfrozen object with a ValidationError and delivers nothing', () => {
    const { bus, task } = busHarness();
    const seen = collect(bus.on('*'));
    const bad = { ...JSON.parse(JSON.stringify(task())), status: 'done' } as Task;
    expect(() => bus.publish(bad)).toThrow(ValidationError);
    expect(seen).toHaveLength(0);
  });

  it.each<TaskStatus>(['input-required', 'failed', 'rejected', 'completed'])(
    "resolves request() with exactly the served reply's status: %s",
    async (status) => {
      const { bus, task, reply } = busHarness();
      let served: Task | undefined;
      bus.serve('poet', (incoming) => {
        served = reply(incoming, status, `answer:${status}`);
        return served;
      });
      const sent = task();

      const answer = await bus.request(sent, { timeoutMs: 1_000 });

      expect(answer).toBe(served);
      expect(answer.status).toBe(status);
      expect(answer.id).toBe(sent.id);
      expect(answer.result).toBe(`answer:${status}`);
    },
  );

  it('lets an async serve handler answer, and publishes nothing when it returns undefined', async () => {
    const { bus, task, reply } = busHarness();
    const all = collect(bus.on('*'));
    bus.serve('poet', async (incoming) => {
      await flush();
      return incoming.action === 'execute' ? reply(incoming, 'input-required') : undefined;
    });

    const answer = await bus.request(task(), { timeoutMs: 1_000 });
    expect(answer.status).toBe('input-required');

    bus.publish(task({ action: 'node.message' }));
    await flush();
    expect(all.map((t) => `${t.action}:${t.status}`)).toEqual(['execute:submitted', 'execute:input-required', 'node.message:submitted']);
  });
});

describe('EventBus wildcards', () => {
  const actions = ['node.message', 'node.a.b', 'nodex', 'node', 'agent.spawned', 'execute'];

  function seenBy(pattern: string): string[] {
    const { bus, task } = busHarness();
    const seen = collect(bus.on(pattern));
    for (const action of actions) bus.publish(task({ action }));
    return seen.map((t) => t.action);
  }

  it('"*" sees every action', () => {
    expect(seenBy('*')).toEqual(actions);
  });

  it('"node.*" sees actions under node at any depth, and nothing else', () => {
    expect(seenBy('node.*')).toEqual(['node.message', 'node.a.b']);
  });

  it('"node.a.*" sees only the deeper prefix', () => {
    expect(seenBy('node.a.*')).toEqual(['node.a.b']);
  });

  it('an exact pattern sees only that action', () => {
    expect(seenBy('node.message')).toEqual(['node.message']);
    expect(seenBy('agent.spawned')).toEqual(['agent.spawned']);
    expect(seenBy('node')).toEqual(['node']);
  });

  it.each(['', ' ', 'Node.*', 'node.', '.node', 'node..a', 'node.*.a', '**', 'node*', '*.message', 'node.**', ' node.*', 'node.*x'])(
    'rejects the invalid pattern %j with a ValidationError',
    (pattern) => {
      const { bus } = busHarness();
      expect(() => bus.on(pattern)).toThrow(ValidationError);
      expect(() => bus.subscribe({ pattern }, () => undefined)).toThrow(ValidationError);
      expect(() => parsePattern(pattern)).toThrow(ValidationError);
    },
  );

  it('delivers a Task to a pattern exactly when matches() says it should', () => {
    const word = fc.constantFrom('a', 'b', 'ab', 'node');
    const action = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join('.'));
    const pattern = fc.oneof(
      fc.constant('*'),
      action,
      action.map((prefix) => `${prefix}.*`),
    );
    fc.assert(
      fc.property(pattern, fc.array(action, { maxLength: 8 }), (p, published) => {
        const { bus, task } = busHarness();
        const seen = collect(bus.on(p));
        for (const a of published) bus.publish(task({ action: a }));
        expect(seen.map((t) => t.action)).toEqual(published.filter((a) => matches(parsePattern(p), a)));
      }),
    );
  });
});

describe('EventBus routing by target', () => {
  it('delivers to one of 10,000 targets and to no other', () => {
    const { bus, task } = busHarness();
    const counts = new Array<number>(10_000).fill(0);
    for (let i = 0; i < counts.length; i++) {
      bus.subscribe({ to: `agent-${i}` }, () => {
        counts[i] = (counts[i] ?? 0) + 1;
      });
    }

    bus.publish(task({ to: 'agent-4321' }));

    expect(counts[4321]).toBe(1);
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(1);
  });

  it('stops delivering to a target whose last subscriber left, and withdraws its interest', () => {
    const transport = new RecordingTransport();
    const { bus, task } = busHarness({ transport });
    let first = 0;
    let second = 0;
    const a = bus.subscribe({ to: 'poet' }, () => first++);
    const b = bus.subscribe({ to: 'poet' }, () => second++);
    expect(transport.live.get('target:poet')).toBe(2);

    a.unsubscribe();
    bus.publish(task());
    expect([first, second]).toEqual([0, 1]);

    b.unsubscribe();
    expect(transport.live.has('target:poet')).toBe(false);
    bus.publish(task());
    expect([first, second]).toEqual([0, 1]);

    // A new subscriber after the target was removed gets a fresh route.
    let third = 0;
    bus.subscribe({ to: 'poet' }, () => third++);
    bus.publish(task());
    expect([first, second, third]).toEqual([0, 1, 1]);
  });

  it('stops delivering to a pattern whose last subscriber left', () => {
    const transport = new RecordingTransport();
    const { bus, task } = busHarness({ transport });
    let count = 0;
    const sub = bus.subscribe({ pattern: 'node.*' }, () => count++);
    bus.publish(task({ action: 'node.message' }));
    sub.unsubscribe();
    expect(transport.live.has('pattern:node.*')).toBe(false);
    bus.publish(task({ action: 'node.message' }));
    expect(count).toBe(1);
  });
});

describe('EventBus isolates failing subscribers', () => {
  it('reports a synchronous throw on faults$ and still delivers to the others', () => {
    const { bus, task } = busHarness();
    const faults: BusFault[] = [];
    bus.faults$.subscribe((fault) => faults.push(fault));
    const before: Task[] = [];
    const after: Task[] = [];
    const boom = new Error('boom');
    bus.subscribe({ to: 'poet' }, (t) => before.push(t));
    bus.subscribe(
      { to: 'poet' },
      () => {
        throw boom;
      },
      'thrower',
    );
    bus.subscribe({ to: 'poet' }, (t) => after.push(t));
    const watcher = collect(bus.on('*'));

    const sent = task();
    bus.publish(sent);
    bus.publish(task());

    expect(before).toHaveLength(2);
    expect(after).toHaveLength(2);
    expect(watcher).toHaveLength(2);
    expect(faults).toHaveLength(2);
    expect(faults[0]).toEqual({ subscriber: 'thrower', task: sent, error: boom });
    expect(faults[0]?.task).toBe(sent);
  });

  it('reports a rejected promise on faults$ and still delivers to the others', async () => {
    const { bus, task } = busHarness();
    const faults: BusFault[] = [];
    bus.faults$.subscribe((fault) => faults.push(fault));
    const others: Task[] = [];
    const boom = new Error('async boom');
    bus.subscribe({ pattern: 'execute' }, async () => {
      await flush();
      throw boom;
    });
    bus.subscribe({ to: 'poet' }, (t) => others.push(t));

    const sent = task();
    bus.publish(sent);
    expect(others).toEqual([sent]);
    await flush();
    await flush();

    expect(faults).toEqual([{ subscriber: 'on:execute', task: sent, error: boom }]);
  });

  it('names a subscriber by its selector when no name is given', () => {
    const { bus, task } = busHarness();
    const faults: BusFault[] = [];
    bus.faults$.subscribe((fault) => faults.push(fault));
    bus.subscribe({ to: 'poet' }, () => {
      throw new Error('x');
    });
    bus.publish(task());
    expect(faults.map((f) => f.subscriber)).toEqual(['to:poet']);
  });

  it('gives a fault nobody observes to its logger, and to no one without one', () => {
    const logger = new MemoryLogger();
    const ids = sequentialIds();
    const make = (): Task => createTask({ from: 'user', to: 'poet', action: 'execute', parameters: { text: 'x' } }, { ids, clock: systemClock });
    const logged = new EventBus({ logger });
    const quiet = new EventBus();
    for (const bus of [logged, quiet]) {
      bus.subscribe(
        { to: 'poet' },
        () => {
          throw new Error('unseen');
        },
        'thrower',
      );
    }
    quiet.publish(make());
    const sent = make();
    logged.publish(sent);
    expect(logger.entries).toEqual([{ level: 'error', message: 'bus subscriber failed', fields: { subscriber: 'thrower', taskId: sent.id, error: 'unseen' } }]);
  });
});

describe('EventBus ordering', () => {
  it("lets on('*') see a request before the reply its handler publishes synchronously", () => {
    const { bus, task, reply } = busHarness();
    const log: string[] = [];
    bus.on('*').subscribe((t) => log.push(`*:${t.from}->${t.to}:${t.status}`));
    bus.subscribe({ to: 'poet' }, (incoming) => {
      log.push('poet handled');
      bus.publish(reply(incoming, 'completed'));
    });
    bus.on('node.*').subscribe((t) => log.push(`node.*:${t.status}`));

    bus.publish(task({ action: 'node.message' }));

    expect(log).toEqual(['node.*:submitted', '*:user->poet:submitted', 'poet handled', 'node.*:completed', '*:poet->user:completed']);
  });

  it('delivers a reply published by a pattern subscriber after the request reaches every observer', () => {
    const { bus, task, reply } = busHarness();
    const log: string[] = [];
    bus.subscribe({ pattern: 'execute' }, (incoming) => {
      if (incoming.status === 'submitted') bus.publish(reply(incoming, 'completed'));
    });
    bus.on('*').subscribe((t) => log.push(`*:${t.status}`));
    bus.to('poet').subscribe((t) => log.push(`poet:${t.status}`));
    bus.to('user').subscribe((t) => log.push(`user:${t.status}`));

    bus.publish(task());

    expect(log).toEqual(['*:submitted', 'poet:submitted', '*:completed', 'user:completed']);
  });
});

describe('EventBus debug ring', () => {
  it('keeps only the last N Tasks, oldest first', () => {
    const { bus, task } = busHarness({ debugRing: 3 });
    const sent = Array.from({ length: 5 }, () => task());
    for (const t of sent) bus.publish(t);
    expect(bus.recent()).toEqual(sent.slice(2));
    expect(bus.recent()[0]).toBe(sent[2]);
  });

  it('holds fewer than N when fewer were published, and none when N is 0', () => {
    const small = busHarness({ debugRing: 3 });
    small.bus.publish(small.task());
    expect(small.bus.recent()).toHaveLength(1);

    const none = busHarness({ debugRing: 0 });
    none.bus.publish(none.task());
    expect(none.bus.recent()).toEqual([]);
  });
});

describe('close', () => {
  it('rejects requests still waiting for a reply', async () => {
    const bus = new EventBus();
    const task = createTask({ from: 'a', to: 'b', action: 'execute' }, { ids: sequentialIds(), clock: systemClock });
    const waiting = bus.request(task, { timeoutMs: 60_000 });
    await bus.close();
    await expect(waiting).rejects.toMatchObject({ code: 'aborted' });
    expect(bus.pendingRequests).toBe(0);
  });
});

describe('wants', () => {
  it('is true exactly when a subscriber here would see the Task, whatever selects it', () => {
    const { bus } = busHarness();
    expect(bus.wants('observer', 'node.tool_call')).toBe(false);
    const byTarget = bus.subscribe({ to: 'observer' }, () => undefined);
    expect(bus.wants('observer', 'node.tool_call')).toBe(true);
    expect(bus.wants('someone-else', 'node.tool_call')).toBe(false);
    byTarget.unsubscribe();
    expect(bus.wants('observer', 'node.tool_call')).toBe(false);
    for (const pattern of ['node.tool_call', 'node.*', '*']) {
      const sub = bus.subscribe({ pattern }, () => undefined);
      expect(bus.wants('observer', 'node.tool_call'), pattern).toBe(true);
      expect(bus.wants('observer', 'agent.spawned'), pattern).toBe(pattern === '*');
      sub.unsubscribe();
    }
    expect(bus.wants('observer', 'node.tool_call')).toBe(false);
  });

  it('stays false for a target whose subscription the transport refused', () => {
    const transport = new RecordingTransport();
    transport.refuse = 'target:painter';
    const { bus } = busHarness({ transport });
    expect(() => bus.subscribe({ to: 'painter' }, () => undefined)).toThrow(/refused/);
    expect(bus.wants('painter', 'execute')).toBe(false);
  });

  it('is always true on a transport that reaches other buses: someone there may listen', () => {
    const { bus } = busHarness({ transport: new RecordingTransport(true) });
    expect(bus.wants('observer', 'node.tool_call')).toBe(true);
  });
});

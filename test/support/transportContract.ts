import { type Observable, firstValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { EventBus } from '../../src/bus/index.js';
import { sequentialIds } from '../../src/ids.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, type TaskInit, type TaskStatus, createTask, replyTo } from '../../src/task/index.js';
import { isDeepFrozen } from './busFixture.js';

/**
 * Two buses on one transport kind: Tasks are sent on `sender` and watched on `receiver`. A
 * transport that reaches other buses gives two (two nodes of one society); the in-process one
 * gives the same bus twice, and every promise below must hold either way.
 */
export interface TransportPair {
  readonly sender: EventBus;
  readonly receiver: EventBus;
}

const clock = new SimulatedClock();
const ids = sequentialIds();

function task(init: Partial<TaskInit> = {}): Task {
  return createTask({ from: 'user', to: 'poet', action: 'execute', parameters: { text: 'hi' }, ...init }, { ids, clock });
}

function first(source: Observable<Task>, count: number): Promise<Task[]> {
  return firstValueFrom(source.pipe(take(count), toArray()));
}

/** Lets every interest declared so far take effect on both sides before anything is sent. */
async function ready(pair: TransportPair): Promise<void> {
  await pair.receiver.transport.flush();
  await pair.sender.transport.flush();
}

/**
 * Sends a last Task to a target nobody else watches and waits for it: everything the sender sent
 * before has been delivered (or never will be) by then, with no wall-clock wait deciding.
 */
async function sentinel(pair: TransportPair): Promise<void> {
  const arrived = first(pair.receiver.to('sentinel'), 1);
  await ready(pair);
  pair.sender.publish(task({ to: 'sentinel', action: 'contract.end' }));
  await arrived;
}

/** The contract every Transport keeps, seen through the buses it connects. */
export function describeTransportContract(name: string, pairOf: () => Promise<TransportPair>): void {
  describe(`transport contract: ${name}`, () => {
    it('delivers a Task to the subscriber of its target, equal to what was sent and deep-frozen', async () => {
      const pair = await pairOf();
      const arrived = first(pair.receiver.to('poet'), 1);
      await ready(pair);
      const sent = task({ parameters: { text: 'hi', nested: { n: [1, 2] } }, metadata: { importance: 0.7 } });
      pair.sender.publish(sent);
      const [received] = await arrived;
      expect(received).toEqual(sent);
      expect(isDeepFrozen(received)).toBe(true);
    });

    it.each(['*', 'node.*', 'node.a.*', 'node.message', 'node'])('delivers to the action pattern %j exactly the actions it matches', async (pattern) => {
      const pair = await pairOf();
      const seen: string[] = [];
      pair.receiver.on(pattern).subscribe((t) => {
        if (t.to !== 'sentinel') seen.push(t.action);
      });
      await ready(pair);
      for (const action of ['node.message', 'node.a.b', 'nodex', 'node', 'agent.spawned']) pair.sender.publish(task({ action }));
      await sentinel(pair);
      const expected: Record<string, string[]> = {
        '*': ['node.message', 'node.a.b', 'nodex', 'node', 'agent.spawned'],
        'node.*': ['node.message', 'node.a.b'],
        'node.a.*': ['node.a.b'],
        'node.message': ['node.message'],
        node: ['node'],
      };
      expect(seen).toEqual(expected[pattern]);
    });

    it('delivers a Task once to each subscriber of a bus whose interests overlap', async () => {
      const pair = await pairOf();
      const counts = { target: 0, prefix: 0, all: 0 };
      pair.receiver.subscribe({ to: 'poet' }, () => counts.target++);
      pair.receiver.subscribe({ pattern: 'node.*' }, () => counts.prefix++);
      pair.receiver.subscribe({ pattern: '*' }, (t) => (t.to === 'poet' ? counts.all++ : undefined));
      await ready(pair);
      for (let i = 0; i < 3; i++) pair.sender.publish(task({ action: 'node.message' }));
      await sentinel(pair);
      expect(counts).toEqual({ target: 3, prefix: 3, all: 3 });
    });

    it('keeps the order in which one bus sent its Tasks', async () => {
      const pair = await pairOf();
      const arrived = first(pair.receiver.to('poet'), 50);
      await ready(pair);
      const sent = Array.from({ length: 50 }, (_, n) => task({ parameters: { n } }));
      for (const t of sent) pair.sender.publish(t);
      expect((await arrived).map((t) => t.id)).toEqual(sent.map((t) => t.id));
    });

    it.each<TaskStatus>(['completed', 'failed', 'input-required'])('answers a request with the reply its receiver serves (%s)', async (status) => {
      const pair = await pairOf();
      pair.receiver.serve('poet', (incoming) => replyTo(incoming, { status, result: `done:${incoming.id}` }, clock));
      await ready(pair);
      const sent = task();
      const answer = await pair.sender.request(sent, { timeoutMs: 60_000 });
      expect(answer).toMatchObject({ id: sent.id, from: 'poet', to: 'user', status, result: `done:${sent.id}` });
      expect(pair.sender.pendingRequests).toBe(0);
    });

    it('stops delivering to a subscriber that left', async () => {
      const pair = await pairOf();
      let count = 0;
      const subscription = pair.receiver.subscribe({ to: 'poet' }, () => count++);
      await ready(pair);
      subscription.unsubscribe();
      await ready(pair);
      pair.sender.publish(task());
      await sentinel(pair);
      expect(count).toBe(0);
    });

    it('ignores a send after it closed, and closes twice without complaint', async () => {
      const pair = await pairOf();
      await pair.sender.transport.close();
      expect(() => pair.sender.transport.send(task())).not.toThrow();
      await expect(pair.sender.transport.close()).resolves.toBeUndefined();
    });
  });
}

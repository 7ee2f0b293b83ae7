import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { randomIds } from '../../src/ids.js';
import { type HttpServerOptions, createHttpServer } from '../../src/server/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { createTask } from '../../src/task/index.js';
import { EventStreamClient } from '../support/eventStreamClient.js';
import { call, serverPerTest } from '../support/httpServerFixture.js';

/** Each server is closed after the test that started it. */
const serve = serverPerTest();
const streams: EventStreamClient[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});

/** A memory-only server, with its event streams (each closed after the test) and a way to publish on its bus. */
async function eventServer(server: HttpServerOptions = {}): Promise<{
  open: (path?: string, lastEventId?: string) => Promise<EventStreamClient>;
  publish: (action: string, note: string) => void;
}> {
  const served = await serve({ memory: true, server });
  return {
    open: async (path = '/api/events', lastEventId) => {
      const stream = await EventStreamClient.open(served.url, path, undefined, lastEventId);
      streams.push(stream);
      return stream;
    },
    publish: (action, note) => {
      served.rt.bus.publish(createTask({ from: 'root', to: 'observer', action, parameters: { note } }, { ids: randomIds, clock: systemClock }));
    },
  };
}

const notes = (stream: EventStreamClient): unknown[] => stream.tasks.map((task) => task.parameters['note']);
const ids = (stream: EventStreamClient): (string | undefined)[] => stream.events.map((event) => event.id);
/** The numbers of a stream's event ids (`<run>-<n>`), after checking every id names the same run. */
function numbers(stream: EventStreamClient): number[] {
  const parts = stream.events.map((event) => /^([0-9a-f]{16})-(\d+)$/.exec(event.id ?? ''));
  expect(new Set(parts.map((part) => part?.[1])).size).toBe(1);
  return parts.map((part) => Number(part?.[2]));
}
/** The run an id names: what comes before its number. */
const runOf = (id: string | undefined): string => id?.replace(/-\d+$/, '') ?? '';

describe('event ids and Last-Event-ID replay', () => {
  it('numbers events once for the server: the same Task has the same id on every stream, whatever its filter', async () => {
    const { open, publish } = await eventServer();
    const everything = await open();
    const nodeOnly = await open('/api/events?action=node.*');
    publish('other.thing', 'a');
    publish('node.note', 'b');
    await everything.until((s) => s.tasks.length === 2);
    await nodeOnly.until((s) => s.tasks.length === 1);
    expect(numbers(everything)).toEqual([1, 2]);
    expect(ids(nodeOnly)).toEqual([ids(everything)[1]]);
  });

  it('a client reconnecting with Last-Event-ID first gets what it missed, then the live events', async () => {
    const { open, publish } = await eventServer();
    // Watches the whole time, so the test knows when the server has seen every Task.
    const watcher = await open();
    const first = await open();
    for (const note of ['1', '2', '3']) publish('node.note', note);
    await first.until((s) => s.tasks.length === 3);
    first.close();
    for (const note of ['4', '5']) publish('node.note', note);
    await watcher.until((s) => s.tasks.length === 5);

    const resumed = await open('/api/events', first.events[2]?.id);
    publish('node.note', '6');
    await resumed.until((s) => s.tasks.length === 3);
    expect(notes(resumed)).toEqual(['4', '5', '6']);
    expect(numbers(resumed)).toEqual([4, 5, 6]);
    // Filters apply to the replay too.
    const filtered = await open('/api/events?action=other.*', `${runOf(first.events[0]?.id)}-0`);
    publish('other.thing', '7');
    await filtered.until((s) => s.tasks.length === 1);
    expect(notes(filtered)).toEqual(['7']);
  });

  it('a client whose id fell out of the replay buffer, or that this server never gave, gets event: reset', async () => {
    const { open, publish } = await eventServer({ replayBufferEvents: 2 });
    const watcher = await open();
    for (const note of ['1', '2', '3', '4']) publish('node.note', note);
    await watcher.until((s) => s.tasks.length === 4);

    const run = runOf(watcher.events[0]?.id);
    const behind = await open('/api/events', `${run}-1`);
    publish('node.note', '5');
    await behind.until((s) => s.tasks.length === 1);
    expect(behind.events[0]).toMatchObject({ event: 'reset', id: `${run}-4` });
    expect((JSON.parse(behind.events[0]?.data ?? '{}') as { reason: string }).reason).toContain('replayBufferEvents');
    expect(notes(behind)).toEqual(['5']);

    // Still in the buffer: replayed without a reset.
    const recent = await open('/api/events', `${run}-3`);
    await recent.until((s) => s.tasks.length === 2);
    expect(recent.events.map((event) => event.event)).toEqual(['task', 'task']);
    expect(notes(recent)).toEqual(['4', '5']);

    const neverSent = await open('/api/events', `${run}-99`);
    await neverSent.until((s) => s.events.length === 1);
    expect(neverSent.events[0]).toMatchObject({ event: 'reset', id: `${run}-5` });
    expect(neverSent.events[0]?.data).toContain('never sent');
  });

  it('ids are unique across restarts: a client holding an id of the server before its restart gets event: reset, not that number of the new one', async () => {
    const before = await eventServer();
    const old = await before.open();
    for (const note of ['a', 'b']) before.publish('node.note', note);
    await old.until((s) => s.tasks.length === 2);
    const heldId = old.events[0]?.id;

    // The restarted server has already sent more events than the client had seen.
    const after = await eventServer();
    const watcher = await after.open();
    for (const note of ['1', '2', '3', '4']) after.publish('node.note', note);
    await watcher.until((s) => s.tasks.length === 4);
    expect(runOf(watcher.events[0]?.id)).not.toBe(runOf(heldId));

    const resumed = await after.open('/api/events', heldId);
    after.publish('node.note', '5');
    await resumed.until((s) => s.tasks.length === 1);
    expect(resumed.events[0]).toMatchObject({ event: 'reset', id: watcher.events[3]?.id });
    expect(resumed.events[0]?.data).toContain('restarted');
    expect(notes(resumed)).toEqual(['5']);
    // An id no server sends any more (a bare number) is one from before a restart too.
    const bare = await after.open('/api/events', '1');
    await bare.until((s) => s.events.length === 1);
    expect(bare.events[0]).toMatchObject({ event: 'reset' });
  });

  it('refuses a Last-Event-ID that is not an event id, and a replay buffer that is not a positive count', async () => {
    const served = await serve({ memory: true });
    const bad = await call<{ error: { code: string; field: string } }>(served.url, '/api/events', { headers: { 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_input', field: 'Last-Event-ID' });
    const rt = await createRuntime();
    expect(() => createHttpServer(rt, { replayBufferEvents: 0 })).toThrow(/replayBufferEvents/);
    await rt.shutdown();
  });
});

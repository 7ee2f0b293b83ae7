import { filter, firstValueFrom, Subject } from 'rxjs';
import { expect, it } from 'vitest';
import { EventBus, type NatsTransportHandle, connectNatsTransport } from '../../src/bus/index.js';
import { randomIds } from '../../src/ids.js';
import { MemoryLogger } from '../../src/logger.js';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { type Task, createTask, finalStatuses, parseTask, readPrompt } from '../../src/task/index.js';
import { cleanupAfterEach, tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { describeWithNatsServer, natsServerForFile, rawNatsClientForFile } from '../support/natsBus.js';
import { runUntilSelfKilled } from '../support/killedWriter.js';
import { ReplyingModel } from '../support/workerModel.js';

// An owner with a data dir takes work from a peer on core NATS, answers it and restarts: the very
// same message published again is not run a second time, since the owner's store holds the work
// (its transport's own memory of it went with the process), while new work still runs.

const serverOf = natsServerForFile();
const rawOf = rawNatsClientForFile(serverOf);
const tempDir = tempDirsAfterEach('troupe-replay-restart-');
const later = cleanupAfterEach();
const clock = new SimulatedClock();
let societies = 0;

/** Turns of the owner's agents, by the Task each was on (read from the prompt the model got). */
function turnsOf(model: ReplyingModel, taskId: string): number {
  return model.requests.filter((request) => readPrompt(request.messages.findLast((message) => message.role === 'user')?.content ?? '')?.taskId === taskId)
    .length;
}

/** A peer that is not troupe: publishes work to root as `gateway` and collects every final answer addressed to it. */
async function gatewayOf(society: string): Promise<{ answers: Subject<Task>; answered: Task[]; publish: (sendingId: string, task: Task) => Uint8Array }> {
  const answers = new Subject<Task>();
  const answered: Task[] = [];
  const subscription = rawOf().subscribe(`troupe.${society}.agent.gateway.>`, {
    callback: (_error, msg) => {
      const task = parseTask(msg.json<{ task: unknown }>().task);
      if (!finalStatuses.has(task.status)) return;
      answered.push(task);
      answers.next(task);
    },
  });
  later(() => {
    subscription.unsubscribe();
    return Promise.resolve();
  });
  await rawOf().flush();
  const publish = (sendingId: string, task: Task): Uint8Array => {
    const data = new TextEncoder().encode(JSON.stringify({ v: 1, id: sendingId, task }));
    rawOf().publish(`troupe.${society}.agent.root.action.execute`, data);
    return data;
  };
  return { answers, answered, publish };
}

/** The owner on its own connection, its agents started and its subscriptions on the server. */
async function owner(society: string, dataDir: string, model: ReplyingModel): Promise<{ rt: Runtime; transport: NatsTransportHandle }> {
  const transport = await connectNatsTransport({ servers: serverOf().url, society, logger: new MemoryLogger() });
  const rt = await createRuntime({ bus: new EventBus({ transport }), dataDir, model, logger: new MemoryLogger() });
  await rt.restored();
  await transport.flush();
  return { rt, transport };
}

const work = (text: string): Task => createTask({ from: 'gateway', to: 'root', action: 'execute', parameters: { text } }, { ids: randomIds, clock });

/**
 * Starts the owner again on `dataDir`, publishes `message` (work taken before) again and then new
 * work, from one connection: NATS keeps their order, so the replay has reached the owner by the
 * time the new work is answered. Resolves with the turns each was given and what was dropped.
 */
async function replayAfterRestart(society: string, dataDir: string, message: Uint8Array, replayed: string) {
  const model = new ReplyingModel(() => ({ text: 'a poem' }));
  const gateway = await gatewayOf(society);
  const { rt, transport } = await owner(society, dataDir, model);
  later(async () => {
    await rt.shutdown({ drainTimeoutMs: 0 });
  });
  rawOf().publish(`troupe.${society}.agent.root.action.execute`, message);
  const fresh = work('a poem about snow');
  const answeredFresh = firstValueFrom(gateway.answers.pipe(filter((task) => task.id === fresh.id)));
  gateway.publish('gateway.2', fresh);
  return {
    freshAnswer: (await answeredFresh).status,
    turns: { replayed: turnsOf(model, replayed), fresh: turnsOf(model, fresh.id) },
    dropped: transport.dropped,
  };
}

describeWithNatsServer('replayed work after the owner restarts (core NATS, with a data dir)', () => {
  it('does not run an exact replay of work taken before a shutdown, and runs new work', async () => {
    const society = `replay-restart-${++societies}`;
    const dataDir = await tempDir();
    const model = new ReplyingModel(() => ({ text: 'a poem' }));
    const gateway = await gatewayOf(society);
    const first = await owner(society, dataDir, model);
    const once = work('a poem about rain');
    const answeredOnce = firstValueFrom(gateway.answers.pipe(filter((task) => task.id === once.id)));
    const message = gateway.publish('gateway.1', once);
    expect((await answeredOnce).status).toBe('completed');
    await first.rt.shutdown({ drainTimeoutMs: 0 });

    const after = await replayAfterRestart(society, dataDir, message, once.id);
    expect(after).toEqual({ freshAnswer: 'completed', turns: { replayed: 0, fresh: 1 }, dropped: 1 });
    expect(gateway.answered.filter((task) => task.id === once.id)).toHaveLength(1);
  });

  it('does not run it again after a kill -9 the instant its answer left', async () => {
    const society = `replay-restart-${++societies}`;
    const dataDir = await tempDir();
    const lines = await runUntilSelfKilled('test/runtime/natsReplayOwner.ts', [serverOf().url, society, dataDir]);
    const sent = lines.find((line) => line.startsWith('sent '));
    if (sent === undefined) throw new Error(`the owner printed no message: ${lines.join('\n')}`);
    const message = Buffer.from(sent.slice('sent '.length), 'base64');
    const replayed = (JSON.parse(message.toString()) as { task: Task }).task.id;

    const after = await replayAfterRestart(society, dataDir, message, replayed);
    expect(after).toEqual({ freshAnswer: 'completed', turns: { replayed: 0, fresh: 1 }, dropped: 1 });
  });
});

import { expect } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { type CompactionBatchOutput, type CompactorEvent, type CompactorInput, memoryCompactorMachine } from '../../machines/memoryCompactor.machine.js';
import type { Effect, Invocation } from '../support/recordingImplementations.js';
import { type ExpectedEffects, type MachineModel, type RunStep, describeMachineModel } from '../support/describeMachineModel.js';

type Snapshot = SnapshotFrom<typeof memoryCompactorMachine>;

/** The domain events plus the settlements of the three promise actors. */
type ModelEvent =
  | CompactorEvent
  | { type: 'xstate.done.actor.prepare'; output: undefined }
  | { type: 'xstate.error.actor.prepare'; error: Error }
  | { type: 'xstate.done.actor.compactBatch'; output: CompactionBatchOutput }
  | { type: 'xstate.error.actor.compactBatch'; error: Error }
  | { type: 'xstate.done.actor.flush'; output: undefined }
  | { type: 'xstate.error.actor.flush'; error: Error };

// One agent per batch, two agents in all: enough for a queue that waits behind a batch, an agent due
// again while its batch runs, and a requeue of an agent that made progress.
const input: CompactorInput = { maxConcurrent: 1 };

const events: readonly ModelEvent[] = [
  { type: 'memory.due', agentId: 'a1' },
  { type: 'memory.due', agentId: 'a2' },
  { type: 'compactor.drain' },
  { type: 'xstate.done.actor.prepare', output: undefined },
  { type: 'xstate.error.actor.prepare', error: new Error('prepare failed') },
  { type: 'xstate.done.actor.compactBatch', output: { again: [] } },
  { type: 'xstate.done.actor.compactBatch', output: { again: ['a1'] } },
  { type: 'xstate.error.actor.compactBatch', error: new Error('compaction failed') },
  { type: 'xstate.done.actor.flush', output: undefined },
  { type: 'xstate.error.actor.flush', error: new Error('flush failed') },
];

function label(event: ModelEvent): string {
  switch (event.type) {
    case 'memory.due':
      return `memory.due(${event.agentId})`;
    case 'compactor.drain':
      return event.type;
    case 'xstate.done.actor.compactBatch':
      return `compactBatch.done(again ${event.output.again.join(',') || 'none'})`;
    case 'xstate.done.actor.prepare':
    case 'xstate.done.actor.flush':
      return `${event.type.slice('xstate.done.actor.'.length)}.done`;
    case 'xstate.error.actor.prepare':
    case 'xstate.error.actor.compactBatch':
    case 'xstate.error.actor.flush':
      return `${event.type.slice('xstate.error.actor.'.length)}.error`;
    default:
      return event satisfies never;
  }
}

/** The queue the documented rules give after `event`, from the context before it. */
function expectedQueue(prev: Snapshot, event: ModelEvent): readonly string[] {
  const { queue } = prev.context;
  if (event.type === 'memory.due') return queue.includes(event.agentId) ? queue : [...queue, event.agentId];
  if (event.type === 'xstate.done.actor.compactBatch') return [...queue, ...event.output.again.filter((id) => !queue.includes(id))];
  return queue;
}

/**
 * The documented effects: prepare on start; a batch of the oldest queued agents is invoked
 * whenever the compactor runs with a queue and is not draining; each batch is reported (done)
 * or its failure is (error); draining drops the queue and flushes; failures of prepare and flush
 * are reported.
 */
function effects({ prev, event, next }: { prev: Snapshot | null; event: ModelEvent | { type: 'xstate.init' }; next: Snapshot }): ExpectedEffects {
  const actions: Effect[] = [];
  const invoked: Invocation[] = [];
  if (prev === null) return { actions, invoked: [{ id: 'prepare', input: undefined }] };
  switch (event.type) {
    case 'xstate.done.actor.compactBatch':
      actions.push({ type: 'reportBatch', params: { agentIds: prev.context.batch, output: event.output } });
      break;
    case 'xstate.error.actor.prepare':
      actions.push({ type: 'reportFailure', params: { stage: 'prepare', error: event.error } });
      break;
    case 'xstate.error.actor.compactBatch':
      actions.push({ type: 'reportFailure', params: { stage: 'compact', error: event.error } });
      break;
    case 'xstate.error.actor.flush':
      actions.push({ type: 'reportFailure', params: { stage: 'flush', error: event.error } });
      break;
    default:
      break;
  }
  // A new batch starts whenever the step ends in compacting from anywhere else, or a batch ended and the next began.
  const batchEnded = event.type === 'xstate.done.actor.compactBatch' || event.type === 'xstate.error.actor.compactBatch';
  if (next.matches('compacting') && (!prev.matches('compacting') || batchEnded)) {
    invoked.push({ id: 'compactBatch', input: { agentIds: next.context.batch } });
  }
  if (next.matches('draining') && !prev.matches('draining')) invoked.push({ id: 'flush', input: undefined });
  return { actions, invoked };
}

/** Over a whole run: every agent made due is compacted or still queued, unless the compactor drained. */
function afterPath(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  for (const { prev, event, next } of steps) {
    if (prev === null || event.type === 'xstate.init') continue;
    expect(new Set(next.context.queue).size, 'an agent is queued at most once').toBe(next.context.queue.length);
    expect(next.context.batch.length, 'a batch never exceeds maxConcurrent').toBeLessThanOrEqual(input.maxConcurrent);
    if (next.matches('draining') || next.matches('terminated')) {
      expect(next.context.queue, 'draining drops the queue').toEqual([]);
      continue;
    }
    // The queue after the step is the documented one, less the batch taken from its head when one started.
    const batchEnded = event.type === 'xstate.done.actor.compactBatch' || event.type === 'xstate.error.actor.compactBatch';
    const batchStarted = next.matches('compacting') && (!prev.matches('compacting') || batchEnded);
    const seen = batchStarted ? [...next.context.batch, ...next.context.queue] : next.context.queue;
    expect(seen, 'queue order: oldest first, each agent once, requeued agents at the back').toEqual(expectedQueue(prev, event));
  }
}

const model: MachineModel<Snapshot, ModelEvent, CompactorInput> = {
  machine: memoryCompactorMachine,
  input,
  events,
  project: (snapshot) => ({
    value: snapshot.value,
    status: snapshot.status,
    queue: snapshot.context.queue,
    batch: snapshot.context.batch,
    draining: snapshot.context.draining,
  }),
  label,
  implement: (harness) =>
    memoryCompactorMachine.provide({
      actors: {
        prepare: harness.actor<undefined, undefined>(),
        compactBatch: harness.actor<CompactionBatchOutput, { agentIds: readonly string[] }>(),
        flush: harness.actor<undefined, undefined>(),
      },
      actions: {
        reportBatch: harness.record('reportBatch'),
        reportFailure: harness.record('reportFailure'),
      },
    }),
  effects,
  afterPath,
};

describeMachineModel('memory compactor machine', model);

import { assign, fromPromise, setup } from 'xstate';

/** What the compactor starts with. */
export interface CompactorInput {
  /** Agents whose memories are compacted at once (the batch size): compaction's share of the machine. */
  readonly maxConcurrent: number;
}

/** What one batch did, per agent, as the runtime's `compactBatch` reports it. */
export interface CompactionBatchOutput {
  /**
   * Agents whose memory made progress and is still due: they go to the back of the queue. An
   * agent whose compaction could not shrink anything is not here, so it is not retried in a loop;
   * it comes back with its next `memory.due`.
   */
  readonly again: readonly string[];
}

export interface CompactorContext extends CompactorInput {
  /** Agents waiting for a compaction, oldest first, each at most once. */
  readonly queue: readonly string[];
  /** The agents of the batch being compacted. */
  readonly batch: readonly string[];
  /** Set by `compactor.drain` while a batch runs: it finishes, then the compactor drains. */
  readonly draining: boolean;
}

export type CompactorEvent =
  /** An agent's memory has something to promote or compress (it passed a capacity, an age or a threshold). */
  | { type: 'memory.due'; agentId: string }
  /** Stop taking work: the batch in progress finishes, the queue is dropped, the memories are flushed. */
  | { type: 'compactor.drain' };

function missing(name: string): never {
  throw new Error(`memory compactor machine: the '${name}' actor is supplied by the runtime (createRuntime)`);
}

/**
 * The memory compactor: one actor per runtime that moves entries L1 → L2 → L3 → L4 and compresses
 * L4, apart from the agents' turns so compaction never blocks one. Agents are compacted in
 * batches of at most `maxConcurrent`; what comes due meanwhile waits in the queue.
 *
 * spawning → running ⇄ compacting → draining → terminated. Draining lets the batch in progress
 * finish (every move is atomic, so stopping in the middle would lose nothing either), drops the
 * queue (the entries stay where they are) and flushes what the memories keep outside the store
 * (their vector index files).
 */
export const memoryCompactorMachine = setup({
  types: {
    input: {} as CompactorInput,
    context: {} as CompactorContext,
    events: {} as CompactorEvent,
  },
  actors: {
    prepare: fromPromise<undefined, undefined>(() => missing('prepare')),
    compactBatch: fromPromise<CompactionBatchOutput, { agentIds: readonly string[] }>(() => missing('compactBatch')),
    flush: fromPromise<undefined, undefined>(() => missing('flush')),
  },
  actions: {
    // An agent is queued once: a second `memory.due` before its batch adds nothing.
    enqueue: assign({
      queue: ({ context, event }) =>
        event.type === 'memory.due' && !context.queue.includes(event.agentId) ? [...context.queue, event.agentId] : context.queue,
    }),
    takeBatch: assign(({ context }) => ({ batch: context.queue.slice(0, context.maxConcurrent), queue: context.queue.slice(context.maxConcurrent) })),
    requeue: assign(({ context }, params: { again: readonly string[] }) => ({
      batch: [],
      queue: [...context.queue, ...params.again.filter((id) => !context.queue.includes(id))],
    })),
    endBatch: assign({ batch: [] }),
    closeIntake: assign({ draining: true }),
    dropQueue: assign({ queue: [] }),
    // Implemented by the runtime; declared here so the editor shows where effects happen.
    reportBatch: (_, _params: { agentIds: readonly string[]; output: CompactionBatchOutput }) => undefined,
    reportFailure: (_, _params: { stage: 'prepare' | 'compact' | 'flush'; error: unknown }) => undefined,
  },
  guards: {
    hasQueue: ({ context }) => context.queue.length > 0,
    draining: ({ context }) => context.draining,
  },
}).createMachine({
  id: 'memoryCompactor',
  context: ({ input }) => ({ ...input, queue: [], batch: [], draining: false }),
  initial: 'spawning',
  states: {
    spawning: {
      invoke: {
        id: 'prepare',
        src: 'prepare',
        onDone: { target: 'running' },
        onError: {
          target: 'terminated',
          actions: [{ type: 'reportFailure', params: ({ event }) => ({ stage: 'prepare' as const, error: event.error }) }, 'dropQueue'],
        },
      },
      on: { 'memory.due': { actions: 'enqueue' }, 'compactor.drain': { actions: 'closeIntake' } },
    },
    running: {
      always: [
        { guard: 'draining', target: 'draining' },
        { guard: 'hasQueue', target: 'compacting' },
      ],
      on: { 'memory.due': { actions: 'enqueue' }, 'compactor.drain': { target: 'draining' } },
    },
    compacting: {
      entry: 'takeBatch',
      invoke: {
        id: 'compactBatch',
        src: 'compactBatch',
        input: ({ context }) => ({ agentIds: context.batch }),
        onDone: {
          target: 'running',
          actions: [
            { type: 'reportBatch', params: ({ context, event }) => ({ agentIds: context.batch, output: event.output }) },
            { type: 'requeue', params: ({ event }) => ({ again: event.output.again }) },
          ],
        },
        onError: {
          target: 'running',
          actions: [{ type: 'reportFailure', params: ({ event }) => ({ stage: 'compact' as const, error: event.error }) }, 'endBatch'],
        },
      },
      on: { 'memory.due': { actions: 'enqueue' }, 'compactor.drain': { actions: 'closeIntake' } },
    },
    draining: {
      entry: 'dropQueue',
      invoke: {
        id: 'flush',
        src: 'flush',
        onDone: { target: 'terminated' },
        onError: {
          target: 'terminated',
          actions: { type: 'reportFailure', params: ({ event }) => ({ stage: 'flush' as const, error: event.error }) },
        },
      },
    },
    terminated: { type: 'final' },
  },
});

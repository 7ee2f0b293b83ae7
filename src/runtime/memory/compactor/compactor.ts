import { type Actor, type InspectionEvent, createActor, fromPromise, toPromise } from 'xstate';
import { type CompactionBatchOutput, memoryCompactorMachine } from '../../../../machines/memoryCompactor.machine.js';
import { type Clock, type TimerHandle, unrefTimer } from '../../../clock.js';
import { describeError } from '../../../errors.js';
import type { ModelClient } from '../../../llm/index.js';
import type { Logger } from '../../../logger.js';
import type { AgentMemory } from '../../../memory/index.js';
import { AgentIdSchema, parseOrThrow } from '../../../task/index.js';
import { agentLogger } from './agentLogger.js';
import { BatchCompactor } from './batchCompactor.js';
import { type CompactorConfigInput, CompactorConfigSchema } from '../../config/compactorConfig.js';

export type { CompactorConfigInput } from '../../config/compactorConfig.js';

/** What the compactor works on and with. */
export interface CompactorDeps {
  /** The open memory of a live agent; undefined once the agent is gone. */
  readonly memoryOf: (agentId: string) => AgentMemory | undefined;
  /** Every open memory: swept for work when the compactor starts, flushed when it drains. */
  readonly liveMemories: () => Iterable<AgentMemory>;
  /** Writes summaries and facts; null: the extractive helpers do (an offline runtime). Pass it behind the runtime's model-call limiter, so compaction shares the society's bound on calls in flight. */
  readonly model: ModelClient | null;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `compactionConcurrency` and the bounds of each model call (see CompactorConfigSchema); other keys are ignored, so the runtime's config can be passed as it is. */
  readonly options?: CompactorConfigInput;
  /** Receives the XState inspection events of the compactor's actor (the runtime's `inspect`). */
  readonly inspect?: (event: InspectionEvent) => void;
}

/** The running compactor. */
export interface Compactor {
  /** Says an agent's memory has work (past a capacity, an age or the L4 threshold): it is queued once until its batch. Ignored once draining. */
  due(agentId: string): void;
  /** Lets the batch in progress finish, drops the queue, flushes the memories; resolves once the actor is terminated. */
  drain(): Promise<void>;
  readonly actor: Actor<typeof memoryCompactorMachine>;
}

/**
 * Starts the memory compactor: one XState actor (`memoryCompactor`) running
 * `memoryCompactorMachine`, which takes agents made due in batches of at most
 * `compactionConcurrency` and has `BatchCompactor` compact each batch. It runs beside the agents'
 * turns and never blocks one; a failure is logged and never stops it.
 * @example
 * const compactor = startCompactor({ memoryOf, liveMemories, model: limited, clock, logger, inspect });
 * compactor.due('root');
 * await compactor.drain();
 */
export function startCompactor(deps: CompactorDeps): Compactor {
  const config = parseOrThrow(CompactorConfigSchema, deps.options ?? {});
  const { clock, logger } = deps;
  const batches = new BatchCompactor({ memoryOf: deps.memoryOf, model: deps.model, config, clock, logger });
  const machine = memoryCompactorMachine.provide({
    actors: {
      // Memories opened before the compactor (a restart) may have work already: queue them now.
      prepare: fromPromise<undefined, undefined>(async () => {
        for (const memory of deps.liveMemories()) if (batches.hasWork(memory)) compactor.due(memory.agentId);
        return undefined;
      }),
      compactBatch: fromPromise<CompactionBatchOutput, { agentIds: readonly string[] }>(({ input }) => batches.compact(input.agentIds)),
      flush: fromPromise<undefined, undefined>(async () => {
        await flushAll(deps.liveMemories(), logger);
        return undefined;
      }),
    },
    actions: {
      reportBatch: (_, { agentIds, output }) => logger.debug({ agentIds, again: output.again }, 'memory compaction batch done'),
      reportFailure: ({ context }, { stage, error }) =>
        logger.error({ stage, agentIds: stage === 'compact' ? context.batch : [], error: describeError(error) }, `the memory compactor's ${stage} failed`),
    },
  });
  const actor = createActor(machine, {
    id: 'memoryCompactor',
    input: { maxConcurrent: config.compactionConcurrency },
    ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
  });
  const terminated = toPromise(actor);
  // The machine handles every failure of its actors; only a throwing action could stop it on an error.
  terminated.catch((error: unknown) => logger.error({ error: describeError(error) }, 'the memory compactor stopped on an error'));
  const compactor: Compactor = {
    actor,
    due(agentId) {
      parseOrThrow(AgentIdSchema, agentId, 'agentId');
      const snapshot = actor.getSnapshot();
      // Queued already: the event would change nothing (see the machine's `enqueue`), and a memory is found due after nearly every Task it keeps.
      if (snapshot.status === 'active' && !snapshot.context.queue.includes(agentId)) actor.send({ type: 'memory.due', agentId });
    },
    async drain() {
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'compactor.drain' });
      await terminated;
    },
  };
  actor.start();
  const stopSweeping = sweepForAge(deps, config.compactionSweepMs, compactor);
  void terminated.finally(stopSweeping).catch(() => undefined);
  return compactor;
}

/** Every `everyMs`, queues each live memory that is due (its oldest entries aged past their tier's bound); returns what stops it. */
function sweepForAge(deps: CompactorDeps, everyMs: number, compactor: Compactor): () => void {
  const { clock } = deps;
  let timer: TimerHandle | undefined;
  const arm = (): void => {
    timer = clock.setTimeout(() => {
      for (const memory of deps.liveMemories()) if (memory.compactionDue(clock.now())) compactor.due(memory.agentId);
      arm();
    }, everyMs);
    unrefTimer(timer);
  };
  arm();
  return () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
}

/** Flushes every memory (writes in flight, index files); one that fails is logged with its agent and does not stop the others. */
async function flushAll(memories: Iterable<AgentMemory>, logger: Logger): Promise<void> {
  await Promise.all(
    [...memories].map(async (memory) => {
      try {
        await memory.flush();
      } catch (error) {
        agentLogger(logger, memory.agentId).error({ error: describeError(error) }, "flushing an agent's memory failed");
      }
    }),
  );
}

import { join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import type { ModelClient } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import type { Embedder } from '../../src/memory/embedding/embedder.js';
import { HashedNgramEmbedder } from '../../src/memory/embedding/hashedNgramEmbedder.js';
import type { FactLimitOptions } from '../../src/memory/facts/factLimits.js';
import { FactStore } from '../../src/memory/facts/factStore.js';
import { AgentMemory, type MemoryLimitsInput } from '../../src/memory/index.js';
import { type Compactor, type CompactorConfigInput, startCompactor } from '../../src/runtime/memory/compactor/compactor.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { cleanupAfterEach } from './cleanupAfterEach.js';
import { envHarness } from './memoryFixture.js';

/** What an agent's memory is opened with in a compactor test. */
export interface MemoryInit {
  readonly limits?: MemoryLimitsInput;
  readonly factLimits?: FactLimitOptions;
  /** The L4 embedder; the offline hashed n-grams unless told (null: none). */
  readonly embedder?: Embedder | null;
}

/** The `compact` calls of a world's memories: how many each agent had, and how many ran at once. */
export class CompactCalls {
  readonly perAgent = new Map<string, number>();
  inFlight = 0;
  maxInFlight = 0;

  /** Counts every call of `memory.compact` from here on (the real method runs). */
  watch(memory: AgentMemory): void {
    const compact = memory.compact.bind(memory);
    memory.compact = async (now, helpers) => {
      this.perAgent.set(memory.agentId, (this.perAgent.get(memory.agentId) ?? 0) + 1);
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
      try {
        return await compact(now, helpers);
      } finally {
        this.inFlight--;
      }
    };
  }

  of(agentId: string): number {
    return this.perAgent.get(agentId) ?? 0;
  }
}

/** The memories of a test's agents (real AgentMemory and FactStore on one temp LMDB env) and the compactor over them. */
export interface CompactorWorld {
  readonly clock: SimulatedClock;
  readonly logger: MemoryLogger;
  readonly memories: Map<string, AgentMemory>;
  readonly calls: CompactCalls;
  readonly indexDir: string;
  readonly open: (agentId: string, init?: MemoryInit) => Promise<AgentMemory>;
  /** Opens an agent's memory with `fill` limits, has `fill` remember into it, closes it and opens it again as `open` does: an L4 above a compressAbove lower than it was filled with. */
  readonly openFilled: (agentId: string, init: MemoryInit, fill: (memory: AgentMemory) => Promise<void>) => Promise<AgentMemory>;
  readonly start: (init?: { model?: ModelClient | null; options?: CompactorConfigInput; inspect?: (event: InspectionEvent) => void }) => Compactor;
}

/**
 * A compactor test's world: agents' memories opened on a temp LMDB environment with their index
 * dir, looked up as the runtime's memory hub would (`memoryOf`, `liveMemories`), on a simulated
 * clock. After each test the compactor is drained, the memories closed, the env removed.
 */
export function compactorHarness(): () => Promise<CompactorWorld> {
  const { tempEnv } = envHarness();
  const later = cleanupAfterEach();
  return async () => {
    const { dir, env } = await tempEnv();
    const clock = new SimulatedClock(1_000_000);
    const logger = new MemoryLogger();
    const memories = new Map<string, AgentMemory>();
    const calls = new CompactCalls();
    const indexDir = join(dir, 'index');
    const open = async (agentId: string, init: MemoryInit = {}): Promise<AgentMemory> => {
      const embedder = init.embedder === undefined ? new HashedNgramEmbedder() : init.embedder;
      const facts = await FactStore.open({ agentId, embedder, db: env, indexDir, clock, logger, limits: init.factLimits ?? {} });
      const memory = await AgentMemory.open({ agentId, db: env, facts, clock, logger, limits: init.limits ?? {} });
      calls.watch(memory);
      memories.set(agentId, memory);
      return memory;
    };
    later(async () => {
      await Promise.all([...memories.values()].map((memory) => memory.close()));
    });
    return {
      clock,
      logger,
      memories,
      calls,
      indexDir,
      open,
      openFilled: async (agentId, init, fill) => {
        const filling = await open(agentId, { ...init, factLimits: { ...init.factLimits, compressAbove: 10_000, keepTopN: 10_000 } });
        await fill(filling);
        await filling.close();
        return open(agentId, init);
      },
      start: (init = {}) => {
        const compactor = startCompactor({
          memoryOf: (agentId) => memories.get(agentId),
          liveMemories: () => memories.values(),
          model: init.model ?? null,
          clock,
          logger,
          ...(init.options === undefined ? {} : { options: init.options }),
          ...(init.inspect === undefined ? {} : { inspect: init.inspect }),
        });
        later(() => compactor.drain());
        return compactor;
      },
    };
  };
}

/** Resolves once the compactor has nothing queued and no batch running (it waits for the actor's snapshots, never a timer). */
export function untilIdle(compactor: Compactor): Promise<void> {
  const idle = (): boolean => {
    const snapshot = compactor.actor.getSnapshot();
    return snapshot.status !== 'active' || (snapshot.matches('running') && snapshot.context.queue.length === 0);
  };
  return new Promise((resolve) => {
    if (idle()) {
      resolve();
      return;
    }
    const subscription = compactor.actor.subscribe(() => {
      if (!idle()) return;
      subscription.unsubscribe();
      resolve();
    });
  });
}

/** Counts the batches the compactor runs and the agents in each, from its snapshots. */
export function recordBatches(compactor: Compactor): (readonly string[])[] {
  const batches: (readonly string[])[] = [];
  let last: readonly string[] = [];
  compactor.actor.subscribe((snapshot) => {
    if (snapshot.matches('compacting') && snapshot.context.batch !== last) batches.push(snapshot.context.batch);
    last = snapshot.context.batch;
  });
  return batches;
}

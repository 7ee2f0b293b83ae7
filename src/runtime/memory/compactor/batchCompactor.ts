import type { CompactionBatchOutput } from '../../../../machines/memoryCompactor.machine.js';
import type { Clock } from '../../../clock.js';
import { describeError } from '../../../errors.js';
import type { ModelClient } from '../../../llm/index.js';
import type { Logger } from '../../../logger.js';
import type { AgentMemory } from '../../../memory/index.js';
import { agentLogger } from './agentLogger.js';
import type { CompactorConfig } from '../../config/compactorConfig.js';
import { compactionHelpers } from './modelHelpers.js';

/** What a batch needs: the memories by agent, the model (null: none), the compactor's config, the clock and where to log. */
export interface BatchDeps {
  readonly memoryOf: (agentId: string) => AgentMemory | undefined;
  readonly model: ModelClient | null;
  readonly config: CompactorConfig;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** What one agent's part of a batch came to: still due after progress, done for now, or not compacted at all. */
type Outcome = 'again' | 'done' | 'skipped';

/**
 * The work of the compactor's batches: each agent of a batch gets one bounded compaction step
 * (`memory.compact`), then an L4 compression when its facts are above their threshold, all
 * agents of the batch at once (the machine makes batches of at most `compactionConcurrency`).
 * An agent that made progress and is still due is compacted again in a later batch; one that
 * made none is not, until its next `memory.due`, so nothing is retried in a loop. A memory
 * closed meanwhile (its agent terminated) is skipped; a failure is logged with the agent's id
 * and ends only that agent's part.
 */
export class BatchCompactor {
  readonly #deps: BatchDeps;
  // Each memory's L4 size after its last compression. It is compressed again only once it has
  // grown by a tenth since (at least one fact): a compression clusters every fact (a k-NN query
  // each), so a store hovering at its threshold, or one whose clusters all fail their fidelity
  // check, must not be compressed anew for every fact added. Under a steady stream of Tasks that
  // starved the compactor and filled L1 to its hard bound. Weak, so a memory let go takes its entry with it.
  readonly #compressedAt = new WeakMap<AgentMemory, number>();

  constructor(deps: BatchDeps) {
    this.#deps = deps;
  }

  async compact(agentIds: readonly string[]): Promise<CompactionBatchOutput> {
    const outcomes = await Promise.all(agentIds.map((agentId) => this.#compactOne(agentId)));
    return { again: agentIds.filter((_, i) => outcomes[i] === 'again') };
  }

  /** Whether a memory has work for the compactor: tiers past a capacity or an age, or facts to compress that may shrink. */
  hasWork(memory: AgentMemory): boolean {
    return !memory.isClosed() && (memory.compactionDue(this.#deps.clock.now()) || this.#shouldCompress(memory));
  }

  async #compactOne(agentId: string): Promise<Outcome> {
    const memory = this.#deps.memoryOf(agentId);
    if (memory === undefined || memory.isClosed()) return 'skipped';
    const { model, config, clock } = this.#deps;
    const logger = agentLogger(this.#deps.logger, agentId);
    try {
      const step = await memory.compact(clock.now(), compactionHelpers(model, { bounds: memory.limits, config, clock, logger }));
      if (!step.progress && step.due) logger.debug({ reason: step.reason }, 'memory compaction made no progress; it waits for the next memory.due');
      if (!memory.isClosed() && this.#shouldCompress(memory)) await this.#compress(memory, logger);
      if (memory.isClosed()) return 'skipped';
      return step.progress && step.due ? 'again' : 'done';
    } catch (error) {
      // Closed while its step ran: the agent was terminated, which is no failure.
      if (memory.isClosed()) return 'skipped';
      logger.error({ error: describeError(error) }, "compacting an agent's memory failed; it is compacted again on its next memory.due");
      return 'done';
    }
  }

  #shouldCompress(memory: AgentMemory): boolean {
    if (!memory.factsNeedCompression()) return false;
    const last = this.#compressedAt.get(memory);
    return last === undefined || memory.counts().l4 >= last + Math.max(1, Math.ceil(last / 10));
  }

  /** Compresses a memory's facts, and notes their number after it. */
  async #compress(memory: AgentMemory, logger: Logger): Promise<void> {
    const report = await memory.compressFacts();
    this.#compressedAt.set(memory, report.after);
    logger.info({ ...report }, 'L4 compressed');
  }
}

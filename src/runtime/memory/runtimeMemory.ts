import type { InspectionEvent } from 'xstate';
import type { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import { TroupeError } from '../../errors.js';
import type { ModelClient } from '../../llm/index.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { type MemoryLimits, intakeBound, memoryLimits } from '../../memory/index.js';
import { type Compactor, type CompactorConfigInput, startCompactor } from './compactor/compactor.js';
import { MemoryHub } from './memoryHub.js';
import type { MemorySettings } from './memoryOptions.js';
import type { Journal, MemoryStore } from '../journal/journal.js';
import { TerminatedRetention } from '../journal/terminatedRetention.js';

/** How long a client refused while memory catches up is told to wait. */
const memoryRetryAfterSeconds = 1;

export interface RuntimeMemoryDeps {
  readonly bus: EventBus;
  readonly clock: Clock;
  /** Makes the ids of graph nodes. */
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** Where memories are kept (the org store's environment and the index directory); null: in memory only. */
  readonly store: MemoryStore | null;
  readonly settings: MemorySettings;
  /** The runtime's model for compaction, taking a free slot of its call limiter or none (`unqueuedModel`); a scripted one leaves summaries and facts to the extractive helpers. */
  readonly model: ModelClient;
  /** The runtime's config: the compactor takes its own keys from it. */
  readonly config: CompactorConfigInput;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** The journal's `forgetRetired`: what forgets terminated agents past the limit once their memories are erased. */
  readonly forgetRetired: Journal['forgetRetired'];
}

/**
 * The runtime's memory side: every live agent's memory (the hub, fed from the bus) and the
 * compactor actor that moves their entries up the tiers, made due by the Tasks memories keep
 * and by its sweep for entries that only aged. Closed in that order: the compactor drains, then
 * the memories close, before the store does.
 */
export class RuntimeMemory {
  readonly hub: MemoryHub;
  /** Forgets the oldest terminated agents past `terminatedAgentsKept`, erasing their memories first. */
  readonly retention: TerminatedRetention;
  readonly #compactor: Compactor;
  readonly #limits: MemoryLimits;

  constructor(deps: RuntimeMemoryDeps) {
    const { bus, clock, ids, logger, store, settings, inspect } = deps;
    this.#limits = memoryLimits(settings.limits);
    this.hub = new MemoryHub({ bus, clock, ids, logger, store, settings, onDue: (id) => this.#compactor.due(id) });
    this.retention = new TerminatedRetention({ journal: { forgetRetired: deps.forgetRetired }, erase: (ids) => this.hub.erase(ids), logger });
    this.#compactor = startCompactor({
      memoryOf: (id) => this.hub.memoryOf(id),
      liveMemories: () => this.hub.live(),
      model: deps.model.scripted ? null : deps.model,
      clock,
      logger,
      options: deps.config,
      ...(inspect === undefined ? {} : { inspect }),
    });
  }

  /**
   * Why `agentId`'s memory cannot take `incoming` more Tasks of new work now, while `unanswered`
   * Tasks it took are in progress (`memory_behind`, with the compactor told it is due), or null
   * when it can or is not open yet: intake refuses such a Task before accepting it, rather than
   * memory dropping what the work says.
   */
  refusal(agentId: string, incoming: number, unanswered: number): TroupeError | null {
    // An agent without a memory here (one on another node) is not this runtime's to hold back.
    if (this.hub.opened(agentId) === undefined) return null;
    // A memory still opening (at a start, a flood may come before it is read) counts as empty,
    // each Task expected to add its request and its answer.
    const memory = this.hub.memoryOf(agentId);
    if (memory?.admits(incoming, unanswered) ?? unanswered + incoming * 2 <= intakeBound(this.#limits)) return null;
    if (memory !== undefined) this.#compactor.due(agentId);
    const held = memory?.counts().l1 ?? 0;
    return new TroupeError(
      'memory_behind',
      `agent ${agentId}'s memory holds ${held} recent Tasks, ${unanswered} Tasks it took are in progress and ${incoming} more are coming: with what they are expected to add, past l1Capacity + maxBacklog less a quarter of it (${intakeBound(this.#limits)} entries); compaction is catching up; try again later`,
      { context: { agentId, retryAfterSeconds: memoryRetryAfterSeconds } },
    );
  }

  /** Lets a retention round finish, drains the compactor (its batch in progress finishes), then closes every memory once written. */
  async close(): Promise<void> {
    await this.retention.settled();
    await this.#compactor.drain();
    await this.hub.closeAll();
  }
}

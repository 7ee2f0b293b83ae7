import type { Subscription } from 'rxjs';
import type { EventBus } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import { TroupeError, describeError } from '../../errors.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { FactStore } from '../../memory/facts/factStore.js';
import { limitsOf } from '../../memory/facts/factLimits.js';
import { indexParams } from '../../memory/facts/loadFacts.js';
import { AgentMemory, type MemoryReader, type RetrievalGraph, StoredMemory, eraseStoredMemories, remembers } from '../../memory/index.js';
import type { Task } from '../../task/index.js';
import type { MemoryStore } from '../journal/journal.js';
import { GraphHub } from './graphHub.js';
import { WorkGraph } from './workGraph.js';
import type { MemorySettings } from './memoryOptions.js';

export interface MemoryHubDeps {
  readonly bus: EventBus;
  readonly clock: Clock;
  /** Makes the ids of graph nodes. */
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly store: MemoryStore | null;
  readonly settings: MemorySettings;
  /** An agent's memory has something to compact: what the memory compactor is told. */
  readonly onDue: (agentId: string) => void;
}

/**
 * Every live agent's memory: opened when the agent starts, fed from the bus (one subscription
 * for the whole society, routed by the Task's sender and receiver), closed when the agent is
 * released. What a memory is fed while it is still opening is kept in order behind the opening.
 * Each agent's graph memory (and the society's) is in `graphs`, closed and erased with its memory.
 */
export class MemoryHub {
  readonly graphs: GraphHub;
  /** Records the society's work in its agents' graphs as the Tasks pass. */
  readonly #work: WorkGraph;
  readonly #deps: MemoryHubDeps;
  readonly #opening = new Map<string, Promise<AgentMemory>>();
  readonly #open = new Map<string, AgentMemory>();
  readonly #closing = new Set<Promise<void>>();
  /** Memories being closed, by agent: a view of one reads the store once its last writes are in. */
  readonly #closingOf = new Map<string, Promise<void>>();
  #closedAll = false;
  readonly #feed: Subscription;

  constructor(deps: MemoryHubDeps) {
    this.#deps = deps;
    const { store, clock, ids, logger, settings } = deps;
    const vectors =
      settings.embedder === null ? null : { embedder: settings.embedder, params: indexParams(settings.embedder.dimension, limitsOf(settings.facts)) };
    this.graphs = new GraphHub({ store, clock, ids, logger, limits: settings.graph, vectors });
    const isLive = (agentId: string): boolean => this.#opening.has(agentId);
    this.#work = new WorkGraph({ graphs: this.graphs, isLive, logger, clock, ids, maxWorkNodes: settings.workNodes });
    this.#feed = deps.bus.subscribe({ pattern: '*' }, (task) => this.#observe(task), 'memory');
  }

  /** Opens `agentId`'s memory (its stored entries and facts come back); at once when already open. */
  open(agentId: string): Promise<AgentMemory> {
    const known = this.#opening.get(agentId);
    if (known !== undefined) return known;
    const opening = this.#openMemory(agentId);
    this.#opening.set(agentId, opening);
    // Registered first, so the memory is known as open before anything fed meanwhile is kept. A
    // memory that opens with work (a restart found it past a capacity) is compacted now, not at
    // the compactor's next sweep: until then intake would refuse its agent's new work.
    opening.then(
      (memory) => {
        if (this.#opening.get(agentId) !== opening) return;
        this.#open.set(agentId, memory);
        if (memory.compactionDue(this.#deps.clock.now())) this.#deps.onDue(agentId);
      },
      (error: unknown) => this.#deps.logger.error({ agentId, error: describeError(error) }, 'agent memory failed to open'),
    );
    return opening;
  }

  async #openMemory(agentId: string): Promise<AgentMemory> {
    const { store, settings, clock, logger } = this.#deps;
    const db = store?.db ?? null;
    const facts = await FactStore.open({ agentId, embedder: settings.embedder, db, indexDir: store?.indexDir ?? null, clock, logger, limits: settings.facts });
    // A search reads the agent's graph beside its facts (one whose graph cannot open, its facts
    // alone); a released agent's graph is not opened again by a search still in flight.
    const graph = (): Promise<RetrievalGraph | null> =>
      this.#opening.has(agentId) ? this.graphs.retrievalOf(agentId).catch(() => null) : Promise.resolve(null);
    return AgentMemory.open({ agentId, db, facts, clock, logger, limits: settings.limits, graph });
  }

  /** Characters of one L4 fact (`memory.facts.maxFactChars`): what a long imported turn is cut to. */
  get maxFactChars(): number {
    return limitsOf(this.#deps.settings.facts).maxFactChars;
  }

  /** How close (similarity) a fact must be to be found at all, by a turn's context and by `search_memory` alike (`memory.minRelevance`). */
  get minRelevance(): number {
    return this.#deps.settings.minRelevance;
  }

  /** The memory of `agentId` once open (undefined while it opens, or when the agent is not live). */
  memoryOf(agentId: string): AgentMemory | undefined {
    return this.#open.get(agentId);
  }

  /** The memory of `agentId`, waiting for it to open; undefined when the agent has none (not live). */
  opened(agentId: string): Promise<AgentMemory> | undefined {
    return this.#opening.get(agentId);
  }

  /** Every open memory (what the compactor flushes). */
  live(): Iterable<AgentMemory> {
    return this.#open.values();
  }

  /** Closes `agentId`'s memory and graph once what they were given is written; what they keep stays in the store. */
  close(agentId: string): void {
    this.#work.forget(agentId);
    void this.graphs.close(agentId);
    const opening = this.#opening.get(agentId);
    if (opening === undefined) return;
    this.#opening.delete(agentId);
    this.#open.delete(agentId);
    const closing = opening.then(
      (memory) => memory.close(),
      () => undefined,
    );
    const settled = closing.catch((error: unknown) => this.#deps.logger.error({ agentId, error: describeError(error) }, 'agent memory failed to close'));
    this.#closing.add(settled);
    this.#closingOf.set(agentId, settled);
    void settled.finally(() => {
      this.#closing.delete(settled);
      if (this.#closingOf.get(agentId) === settled) this.#closingOf.delete(agentId);
    });
  }

  /**
   * What a view reads `agentId`'s memory from: its open memory (`live`), else what the store
   * keeps of it (`store`, read once a closing in progress has written everything), else null: a
   * memory kept in memory only went with its agent. Refused once every memory is closed.
   */
  async reader(agentId: string): Promise<{ memory: MemoryReader; source: 'live' | 'store' } | null> {
    if (this.#closedAll) throw new TroupeError('intake_closed', "the runtime is shut down: its agents' memories are closed");
    const open = this.#opening.get(agentId);
    if (open !== undefined) return { memory: await open, source: 'live' };
    const { store, settings, logger } = this.#deps;
    if (store === null) return null;
    await this.#closingOf.get(agentId);
    return { memory: StoredMemory.read({ agentId, db: store.db, logger, embedder: settings.embedder, limits: settings.facts }), source: 'store' };
  }

  /**
   * Erases what the memories of `agentIds` keep in the store (entries, facts, vectors, index
   * files, graphs): agents the organisation forgets. A memory still open is closed first, and one
   * closing is waited for, so nothing it writes late outlives the erasure. Nothing to do in memory only.
   */
  async erase(agentIds: readonly string[]): Promise<void> {
    const { store } = this.#deps;
    if (store === null || agentIds.length === 0) return;
    for (const agentId of agentIds) this.close(agentId);
    await Promise.all(agentIds.map((agentId) => this.#closingOf.get(agentId) ?? Promise.resolve()));
    // The graphs first: closing one saves its node vectors among the index files erased next.
    await this.graphs.erase(agentIds);
    await eraseStoredMemories(store.db, store.indexDir, agentIds);
  }

  /** Stops feeding memories and closes every one; resolves once all are closed (before the store closes). */
  async closeAll(): Promise<void> {
    this.#closedAll = true;
    this.#feed.unsubscribe();
    this.#work.close();
    for (const agentId of [...this.#opening.keys()]) this.close(agentId);
    await Promise.all([...this.#closing, this.graphs.closeAll()]);
  }

  #observe(task: Task): void {
    this.#work.observe(task);
    this.#feedTo(task.from, task);
    if (task.to !== task.from) this.#feedTo(task.to, task);
  }

  #feedTo(agentId: string, task: Task): void {
    if (!remembers(agentId, task)) return;
    const memory = this.#open.get(agentId);
    if (memory !== undefined) {
      this.#keep(memory, task);
      return;
    }
    // Still opening: kept in order behind the opening (then-callbacks run in the order they were added).
    void this.#opening.get(agentId)?.then((opened) => this.#keep(opened, task));
  }

  #keep(memory: AgentMemory, task: Task): void {
    const { logger, clock, onDue } = this.#deps;
    memory.observe(task).then(
      () => {
        if (memory.compactionDue(clock.now())) onDue(memory.agentId);
      },
      (error: unknown) => logger.error({ agentId: memory.agentId, taskId: task.id, error: describeError(error) }, 'memory failed to keep a Task'),
    );
  }
}

import type { Clock } from '../../clock.js';
import { TroupeError, describeError } from '../../errors.js';
import { type GraphLimitOptions, type GraphMemory, type ReadonlyGraph, eraseStoredGraphs, openGraphMemory, readStoredGraph } from '../../graph/index.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import type { MemoryStore } from '../journal/journal.js';
import type { Embedder } from '../../memory/embedding/embedder.js';
import type { IndexParams } from '../../memory/facts/vectorIndex.js';
import { GraphRetrieval } from './graphRetrieval.js';
import { nodeVectorFileOf } from './nodeVectorFile.js';
import { NodeVectors } from './nodeVectors.js';

/** The owner of the graph a whole society shares: an id no agent may take (see `reservedIds`). */
export const societyGraphOwner = 'society';

const closedRefusal = (): TroupeError => new TroupeError('intake_closed', 'the runtime is shut down: its graphs are closed');

export interface GraphHubDeps {
  /** The org store's environment (sub-dbs `graph-nodes`, `graph-edges`); null: graphs in memory only. */
  readonly store: MemoryStore | null;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly limits: GraphLimitOptions | undefined;
  /** What makes the nodes' vectors (the agents' L4 embedder) and how their index is built (L4's); null: nodes have none. */
  readonly vectors: { readonly embedder: Embedder; readonly params: Omit<IndexParams, 'dimension'>; readonly minSaved?: number } | null;
}

/**
 * Every graph memory in use: one per live agent and the society's, each opened on first use (its
 * stored nodes and edges loaded whole) and kept until its owner's memory closes. In memory only,
 * a graph closed goes with its agent, as its facts do.
 */
export class GraphHub {
  readonly #deps: GraphHubDeps;
  readonly #open = new Map<string, Promise<GraphMemory>>();
  /** The graphs of `#open` that have finished opening: what `sizes` reads without waiting. */
  readonly #ready = new Map<string, GraphMemory>();
  /** Graphs being closed, by owner: a view or an erasure waits for their last writes. */
  readonly #closing = new Map<string, Promise<void>>();
  /** Each open graph's retrieval side, made on the first search that reads it. */
  readonly #retrieval = new WeakMap<GraphMemory, GraphRetrieval>();
  #closedAll = false;

  constructor(deps: GraphHubDeps) {
    this.#deps = deps;
  }

  /** The graph of `ownerId` (an agent's id, or `society`), opened now if it is not yet. */
  of(ownerId: string): Promise<GraphMemory> {
    if (this.#closedAll) return Promise.reject(closedRefusal());
    const known = this.#open.get(ownerId);
    if (known !== undefined) return known;
    const { store, clock, ids, logger, limits } = this.#deps;
    const opening = (this.#closing.get(ownerId) ?? Promise.resolve()).then(() =>
      openGraphMemory({ db: store?.db ?? null, ownerId, clock, ids, logger, ...(limits === undefined ? {} : { limits }) }),
    );
    this.#open.set(ownerId, opening);
    opening.then(
      (graph) => {
        if (this.#open.get(ownerId) === opening) this.#ready.set(ownerId, graph);
      },
      () => undefined,
    );
    // One that failed to open is opened again next time, rather than failing forever.
    opening.catch((error: unknown) => {
      if (this.#open.get(ownerId) === opening) this.#open.delete(ownerId);
      logger.error({ owner: ownerId, error: describeError(error) }, 'graph memory failed to open');
    });
    return opening;
  }

  /** The graph of `ownerId` as a search of its memory reads it (see GraphRetrieval), opened now if it is not yet. */
  async retrievalOf(ownerId: string): Promise<GraphRetrieval> {
    const graph = await this.of(ownerId);
    let retrieval = this.#retrieval.get(graph);
    if (retrieval === undefined) {
      const { vectors, logger, store } = this.#deps;
      const file = vectors === null || store === null ? null : nodeVectorFileOf(store.indexDir, ownerId, vectors.embedder);
      retrieval = new GraphRetrieval(graph, vectors === null ? null : new NodeVectors({ ...vectors, logger, file, owner: ownerId }));
      this.#retrieval.set(graph, retrieval);
    }
    return retrieval;
  }

  /**
   * What a view reads `ownerId`'s graph from when its owner is not live: what the store keeps of it
   * (read once a closing in progress has written everything), or null in memory only.
   */
  async stored(ownerId: string): Promise<ReadonlyGraph | null> {
    if (this.#closedAll) throw closedRefusal();
    await this.#closing.get(ownerId);
    const { store, logger } = this.#deps;
    return store === null ? null : readStoredGraph(store.db, ownerId, logger);
  }

  /** Closes `ownerId`'s graph once every change made to it is on disk, and its node vectors saved; resolves then. */
  close(ownerId: string): Promise<void> {
    const opening = this.#open.get(ownerId);
    if (opening === undefined) return this.#closing.get(ownerId) ?? Promise.resolve();
    this.#open.delete(ownerId);
    this.#ready.delete(ownerId);
    const closing = opening.then(
      async (graph) => {
        // Its node vectors are saved (see NodeVectors.close) while its last changes reach the store.
        await Promise.all([this.#retrieval.get(graph)?.close(), graph.flushed()]);
      },
      () => undefined,
    );
    this.#closing.set(ownerId, closing);
    void closing.finally(() => {
      if (this.#closing.get(ownerId) === closing) this.#closing.delete(ownerId);
    });
    return closing;
  }

  /** The graphs open now and the nodes and edges they hold, changes not yet on disk included. */
  sizes(): { open: number; nodes: number; edges: number } {
    let nodes = 0;
    let edges = 0;
    for (const memory of this.#ready.values()) {
      nodes += memory.graph.nodeCount;
      edges += memory.graph.edgeCount;
    }
    return { open: this.#ready.size, nodes, edges };
  }

  /** Erases what the graphs of `ownerIds` keep in the store (agents the organisation forgets), closing them first. */
  async erase(ownerIds: readonly string[]): Promise<void> {
    await Promise.all(ownerIds.map((ownerId) => this.close(ownerId)));
    const { store } = this.#deps;
    if (store !== null) await eraseStoredGraphs(store.db, ownerIds);
  }

  /** Closes every graph; resolves once all are on disk (before the store closes). */
  async closeAll(): Promise<void> {
    this.#closedAll = true;
    await Promise.all([...this.#open.keys()].map((ownerId) => this.close(ownerId)));
  }
}

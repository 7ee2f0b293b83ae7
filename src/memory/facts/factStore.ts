import type { RootDatabase } from 'lmdb';
import { type Clock, systemClock } from '../../clock.js';
import { TroupeError, ValidationError } from '../../errors.js';
import { type Logger, silentLogger } from '../../logger.js';
import { AgentIdSchema, parseOrThrow } from '../../task/index.js';
import type { Embedder } from '../embedding/embedder.js';
import { halfPrecision } from '../embedding/vectors.js';
import { CompressionControl } from './compressionControl.js';
import { checkNewFact, checkSearch } from './factInput.js';
import { type FactLimitOptions, type FactLimits, limitsOf } from './factLimits.js';
import { type FactChange, FactRecords } from './factRecords.js';
import { TrackedWrites } from './trackedWrites.js';
import { type CompressionReport, type Fact, type FactHit, type NewFact, groupOf, labelOf, oldestFirst, visibleTo } from './factSchema.js';
import { FactSet } from './factSet.js';
import { indexFileOf } from './indexFile.js';
import { IndexSaver } from './indexSaver.js';
import { indexParams, loadFacts } from './loadFacts.js';
import { TurnGate } from './turnGate.js';
import { createVectorIndex } from './createVectorIndex.js';
import { embedOne } from './factEmbedding.js';
import { IndexCatchUp } from './indexCatchUp.js';
import { mergeIntoTwin, placeFact, twinOf } from './factEdits.js';
import { type FactImportDeps, importFacts } from './factImport.js';
import type { VectorIndex } from './vectorIndex.js';
import { floorsOf } from './hybridHits.js';
import { type SearchedFacts, nearestFacts } from './nearestFacts.js';
import type { RetrievalGraph } from './retrievalGraph.js';

/** How a search is narrowed: whose facts (see visibleTo), its floors, and the agent's graph to search and follow beside the facts. */
export interface FactSearchFilter {
  readonly sessionId: string | null;
  readonly minSimilarity?: number;
  readonly minKeywordScore?: number;
  /** Null or absent: the facts alone (no node is found, and the graph channel follows only the links between facts). */
  readonly graph?: RetrievalGraph | null;
}

/** @public The types of the contract with the memory facade (part "tiers" of issue 14), from the module it names. */
export type { CompressionReport, Fact, FactHit, FactScope, NewFact } from './factSchema.js';

export interface FactStoreOptions {
  readonly agentId: string;
  /** Makes the vectors; null: search by word overlap, and compression keeps the top `keepTopN` by importance. */
  readonly embedder: Embedder | null;
  /** The organisation store's LMDB environment (its `memory-*` sub-dbs hold L4); null: L4 lives in memory only. */
  readonly db: RootDatabase | null;
  /** Where the index file goes (`<agentId>.<embedder hash>.hnsw`); null: the index is built in memory on open. Needs `db`. */
  readonly indexDir: string | null;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly limits?: FactLimitOptions;
}

/**
 * L4 of one agent's memory: facts (text and metadata) in LMDB `memory-facts`, their vectors in
 * `memory-vectors` (what the index is rebuilt from) and an hnswlib index saved beside the store
 * (without hnswlib-node, or with `exactSearch`, an exact index that is not saved).
 * Every change is one LMDB transaction, applied in memory in the same synchronous section that
 * issues it, so concurrent calls always see a consistent store; a change resolves once it is on
 * disk. One FactStore per agent at a time.
 * @example
 * const facts = await FactStore.open({ agentId: 'root', embedder: new HashedNgramEmbedder(), db, indexDir, clock, logger });
 * await facts.add({ text: 'The user prefers dark mode.', scope: 'agent', sessionId: null, importance: 0.8 });
 * const hits = await facts.search('what theme does the user like?', 5, { sessionId: 's1' });
 * await facts.close();
 */
export class FactStore {
  readonly #agentId: string;
  readonly #embedder: Embedder | null;
  readonly #writes: TrackedWrites;
  readonly #indexSaver: IndexSaver | null;
  readonly #limits: FactLimits;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #set: FactSet;
  /** Puts the vectors adds and imports left for the index into it. */
  readonly #catchUp: IndexCatchUp;
  readonly #compression: CompressionControl;
  /** What `addMany` stores through: the parts above, shared with single adds. */
  readonly #importDeps: FactImportDeps;
  /** Spreads the synchronous sections of a burst of adds over turns of the event loop. */
  readonly #addGate = new TurnGate();
  /** The import in progress, if any: imports run one after another, so each compares its facts with those of the one before (see importFacts). */
  #importing: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;

  private constructor(options: FactStoreOptions, limits: FactLimits, records: FactRecords, loaded: Awaited<ReturnType<typeof loadFacts>>) {
    const { agentId, embedder, indexDir } = options;
    const clock = options.clock ?? systemClock;
    const logger = options.logger ?? silentLogger;
    const set = new FactSet(loaded, embedder === null);
    const gate = this.#addGate;
    const writes = new TrackedWrites(records, agentId, logger);
    const untilIndexSaved = (): Promise<void> => this.#untilIndexSaved();
    const catchUp = new IndexCatchUp({ agentId, set, gate, untilIndexSaved, logger });
    const writeParts = (parts: readonly FactChange[]): Promise<void> => writes.writeParts(parts, () => set.meta);
    const compression = new CompressionControl({ agentId, set, embedder, limits, clock, logger, catchUp, untilIndexSaved, writeParts });
    this.#agentId = agentId;
    this.#embedder = embedder;
    this.#limits = limits;
    this.#clock = clock;
    this.#logger = logger;
    this.#set = set;
    this.#writes = writes;
    this.#catchUp = catchUp;
    this.#compression = compression;
    this.#importDeps = { set, embedder, limits, clock, logger, gate, compression, catchUp, writes, readyForBatch: () => this.#readyForBatch() };
    this.#indexSaver =
      indexDir === null || embedder === null ? null : new IndexSaver(indexFileOf(indexDir, agentId, embedder), embedder, loaded.savedGeneration);
    // Vectors the file was saved without whose group has grown since wait for the index (see GroupedVectors.add).
    catchUp.start();
  }

  /**
   * Opens an agent's L4, rebuilding its index from the stored vectors when the file is missing,
   * unreadable or older than them. Rejects with `embedder_mismatch` when its facts were stored
   * with another embedder, and with a ValidationError naming a bad option.
   */
  static async open(options: FactStoreOptions): Promise<FactStore> {
    parseOrThrow(AgentIdSchema, options.agentId, 'agentId');
    const limits = limitsOf(options.limits);
    if (options.indexDir !== null && options.db === null) {
      throw new ValidationError('indexDir', 'needs db: an index file is rebuilt from the vectors stored in LMDB, and without db none are stored');
    }
    const logger = options.logger ?? silentLogger;
    const records = new FactRecords(options.db, options.agentId, logger);
    const loaded = await loadFacts({ agentId: options.agentId, embedder: options.embedder, records, indexDir: options.indexDir, limits, logger });
    return new FactStore(options, limits, records, loaded);
  }

  get size(): number {
    return this.#set.size;
  }

  /** Vectors of added or imported facts not in the index yet: searches compare with them directly until they are. */
  get unindexed(): number {
    return this.#set.vectors.unindexed;
  }

  get maxQueryChars(): number {
    return this.#limits.maxQueryChars;
  }

  /**
   * Stores a fact, or merges it into a stored one of the same scope and session at least
   * `mergeThreshold` close (keeping that one's text: importance the higher of both, the new
   * fact's id recorded in `mergedFrom`). Resolves once it is on disk. The store never holds more
   * than `compressAbove` facts: an add that finds it full starts a compression that makes room
   * (see compress) and waits for it, as does an add while a compression runs; past
   * `maxWaitingAdds` such adds, one is refused with `memory_full`. A new fact's vector goes into
   * the index once the process has spare time (see IndexCatchUp), or at once when `maxUnindexed`
   * wait already; searches find it either way.
   */
  async add(input: NewFact): Promise<{ fact: Fact; merged: boolean }> {
    this.#refuseWhenClosed();
    const fact = checkNewFact(input, this.#limits);
    // Kept at the precision it is stored at, so the index and a rebuild of it from the store agree.
    const embedded = await embedOne(this.#embedder, fact.text);
    const vector = embedded === null ? null : halfPrecision(embedded);
    const index = vector === null ? null : await (this.#set.index ??= createVectorIndex(indexParams(vector.length, this.#limits), this.#logger));
    let failed: { error: unknown } | undefined;
    for (;;) {
      // Awaits only while a save runs: an await when none does would let one start before the change below.
      if (this.#saving !== undefined) {
        await this.#saving;
        continue;
      }
      this.#refuseWhenClosed();
      if (!this.#addGate.admits()) {
        await this.#addGate.nextTurn();
        continue;
      }
      if (this.#compression.running === undefined) {
        // From here on, synchronous until the write is issued: nothing can come between the check and the change.
        const twin = twinOf(this.#set, fact, vector, index, this.#limits.mergeThreshold);
        if (twin !== undefined) return this.#mergeInto(twin, fact);
        if (this.#set.size < this.#limits.compressAbove) return this.#insert(fact, vector, index);
        // The compression this add waited for failed and left no room: another would most likely fail too.
        if (failed !== undefined) throw failed.error;
        void this.#compression.start(true);
      }
      failed = await this.#compression.waitAsAdd();
    }
  }

  /**
   * Stores many facts at once (an import), in order: each is checked first (a bad one refuses them
   * all, naming it: `facts[3].text: …`), they are embedded in batches and written in transactions
   * of at most `recordsPerTransaction` records, and the call resolves once every one is on disk. A
   * fact with `merge` is merged into a close stored one (or one earlier in the batch) as `add`
   * merges; one without (a conversation's turn) is stored as it is. Refused with `memory_full`,
   * before anything is stored, when they would take the store past `compressAbove`. A crash
   * part-way keeps the transactions written before it.
   */
  async addMany(inputs: readonly { readonly fact: unknown; readonly merge: boolean }[]): Promise<{ fact: Fact; merged: boolean }[]> {
    this.#refuseWhenClosed();
    const facts = inputs.map((input, i) => ({ fact: checkNewFact(input.fact, this.#limits, `facts[${i}]`), merge: input.merge }));
    const imported = this.#importing.then(() => importFacts(this.#importDeps, facts));
    this.#importing = imported.catch(() => undefined);
    return imported;
  }

  /** Resolves when a batch of `addMany` may change the store: no index save or compression runs, and the turn's slice has room. */
  async #readyForBatch(): Promise<void> {
    for (;;) {
      this.#refuseWhenClosed();
      if (this.#saving !== undefined) await this.#saving;
      else if (this.#compression.running !== undefined) await this.#compression.running.catch(() => undefined);
      else if (!this.#addGate.admits()) await this.#addGate.nextTurn();
      else return;
    }
  }

  /**
   * Removes facts by id, with their vectors, in one transaction; resolves with the ids it held
   * (once on disk). An id merged into another fact is not held: `mergedInto` says which holds it.
   */
  async remove(ids: readonly string[]): Promise<string[]> {
    this.#refuseWhenClosed();
    const index = await this.#set.index;
    while (this.#saving !== undefined || this.#compression.running !== undefined) {
      await this.#saving;
      await this.#compression.running?.catch(() => undefined);
      this.#refuseWhenClosed();
    }
    const held = ids.flatMap((id) => {
      const fact = this.#set.get(id);
      return fact === undefined ? [] : [fact];
    });
    if (held.length === 0) return [];
    const vectorsRemoved = held.some((fact) => this.#set.vectors.vectorOf(labelOf(fact.id)) !== undefined);
    for (const fact of held) this.#set.remove(fact, index);
    if (vectorsRemoved) this.#set.bumpGeneration();
    await this.#writes.write({ removeFacts: held.map((fact) => fact.id), meta: this.#set.meta });
    return held.map((fact) => fact.id);
  }

  /** The fact that holds `id` since it was merged into it, if any. */
  mergedInto(id: string): Fact | undefined {
    return this.#set.all().find((fact) => fact.mergedFrom.includes(id));
  }

  /**
   * Stores a new fact (room for it was checked) and resolves once it is on disk. Its vector is
   * kept out of the index while its session's facts are few enough for every search of them to
   * compare with each directly (see GroupedVectors.smallGroup); otherwise it waits for the index,
   * off the caller's path, unless `maxUnindexed` already do. The record and the vector are written
   * either way, so what an add acknowledged never depends on the index.
   */
  async #insert(fact: NewFact, vector: Float32Array | null, index: VectorIndex | null): Promise<{ fact: Fact; merged: boolean }> {
    const { vectors } = this.#set;
    const maxUnindexed = this.#limits.maxUnindexed;
    const deferredBy =
      vector === null || maxUnindexed === 0 ? undefined : vectors.smallGroup(groupOf(fact)) ? 'outside' : vectors.unindexed < maxUnindexed ? 'add' : undefined;
    const stored = placeFact(this.#set, fact, vector, index, {
      now: this.#clock.now(),
      embedder: this.#embedder,
      ...(deferredBy === undefined ? {} : { deferredBy }),
    });
    if (deferredBy !== undefined) this.#catchUp.start();
    if (vector !== null) this.#set.bumpGeneration();
    const putVectors = vector === null || this.#embedder === null ? [] : [{ id: stored.id, embedder: this.#embedder.id, vector }];
    await this.#writes.write({ putFacts: [stored], putVectors, meta: this.#set.meta });
    return { fact: stored, merged: false };
  }

  /**
   * The `k` facts that best match `text` among those the session may see (its own and agent-scope
   * facts; with `sessionId: null`, agent-scope facts only), best first: the vector channel's
   * nearest and the keyword channel's (BM25) best, fused by reciprocal rank (see fuseChannels). A
   * fact is returned when its similarity is at least `minSimilarity` (`defaultMinSimilarity`
   * unless given) or its keyword score at least `minKeywordScore`
   * (`defaultMinKeywordScore`). Each one returned counts a retrieval (written in the background).
   */
  async search(text: string, k: number, filter: FactSearchFilter): Promise<FactHit[]> {
    this.#refuseWhenClosed();
    const query = checkSearch(text, k, { sessionId: filter.sessionId }, this.#limits);
    // Closed while the query was embedded: no retrieval may be written after close.
    const found = await nearestFacts(this.#searched, { ...query, floors: floorsOf(filter), graph: filter.graph ?? null }, () => this.#refuseWhenClosed());
    const hits = found.map((hit) => {
      if (hit.node !== undefined) return hit;
      const retrieved = { ...hit.fact, retrievals: hit.fact.retrievals + 1 };
      this.#set.update(retrieved);
      return { ...hit, fact: retrieved };
    });
    const retrieved = hits.flatMap((hit) => (hit.node === undefined ? [hit.fact] : []));
    // Not waited for: a lost retrieval count only makes a fact look a little less used. A failure is logged by TrackedWrites.
    if (retrieved.length > 0) this.#writes.write({ putFacts: retrieved }).catch(() => undefined);
    return hits;
  }

  /** What a search reads (see nearestFacts). */
  get #searched(): SearchedFacts {
    return { set: this.#set, embedder: this.#embedder, limits: this.#limits };
  }

  /**
   * As `search`, but a look at what the agent remembers rather than a use of it: no retrieval is
   * counted, nothing is written, and without `sessionId` every fact of every session is searched.
   * The default floors apply.
   */
  async peek(text: string, k: number, filter: { sessionId?: string | null; graph?: RetrievalGraph | null } = {}): Promise<FactHit[]> {
    this.#refuseWhenClosed();
    const { sessionId } = filter;
    const query = checkSearch(text, k, { sessionId: sessionId ?? null }, this.#limits);
    const searched = { text: query.text, k: query.k, sessionId, floors: floorsOf({}), graph: filter.graph ?? null };
    return nearestFacts(this.#searched, searched, () => this.#refuseWhenClosed());
  }

  /** Every fact (no filter), or those a session may see (`{ sessionId }`: its own and agent-scope; null: agent-scope only), oldest first. */
  list(filter?: { sessionId?: string | null }): Fact[] {
    const sessionId = filter?.sessionId;
    return this.#set
      .all()
      .filter((fact) => visibleTo(fact, sessionId))
      .sort(oldestFirst);
  }

  /** True above `compressAbove` facts: only a store opened with a lower `compressAbove` than it was filled with (adds never pass it). */
  needsCompression(): boolean {
    return this.#compression.needed();
  }

  /**
   * With an embedder, merges each cluster of close facts (see findClusters) whose merged text
   * passes the fidelity check, each merge one LMDB transaction with the removal of its originals;
   * without one, keeps `keepTopN` facts. When it was due (above `compressAbove`) and merging left
   * more than `keepTopN`, facts go down to it: the least important of each session over its share
   * (see dropsByGroup). What it cannot shrink it leaves as it is and reports (`merged: 0`). Last,
   * it rebuilds the index without the vectors it removed, when they are many (see
   * FactSet.compactIndex). Calls run one after another, adds wait while one runs (see add), and
   * its work is cut into slices with turns of the event loop between them (see TurnBudget), so it
   * never stalls the process.
   */
  async compress(): Promise<CompressionReport> {
    this.#refuseWhenClosed();
    return this.#compression.compress();
  }

  /** Waits for every change in flight, then saves the index file if it changed (a reopen need not rebuild it); the store stays open. */
  async flush(): Promise<void> {
    // A compression changes the index between its writes: the file is saved only when none runs.
    while (this.#compression.running !== undefined || this.#writes.inFlight > 0 || this.#catchUp.running) {
      await this.#compression.running?.catch(() => undefined);
      await this.#writes.settled();
      await this.#catchUp.done();
    }
    await this.#indexSaver?.save(this.#set);
  }

  /** Flushes (see flush) and refuses every later call. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.flush();
    return this.#closing;
  }

  /**
   * The index file's save in progress (see IndexSaver). A change to the index waits for it right
   * before its synchronous section, and awaits nothing when none runs: an await would let one start.
   */
  get #saving(): Promise<void> | undefined {
    return this.#indexSaver?.saving;
  }

  /**
   * Resolves once no index file is being saved. Only work that runs apart from adds (a compression,
   * the index catch-up) may await it before it changes the index (it costs a microtask even when no
   * save runs): no save starts while either runs (see flush).
   */
  async #untilIndexSaved(): Promise<void> {
    while (this.#saving !== undefined) await this.#saving;
  }

  #refuseWhenClosed(): void {
    if (this.#closing !== undefined)
      throw new TroupeError('internal', `the L4 fact store of agent ${this.#agentId} is closed`, { context: { agentId: this.#agentId } });
  }

  async #mergeInto(twin: Fact, fact: NewFact): Promise<{ fact: Fact; merged: boolean }> {
    const merged = mergeIntoTwin(this.#set, twin, fact, this.#limits);
    await this.#writes.write({ putFacts: [merged], meta: this.#set.meta });
    return { fact: merged, merged: true };
  }
}

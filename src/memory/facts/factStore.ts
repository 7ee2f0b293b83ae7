import type { RootDatabase } from 'lmdb';
import { type Clock, systemClock } from '../../clock.js';
import { TroupeError, ValidationError, describeError } from '../../errors.js';
import { type Logger, silentLogger } from '../../logger.js';
import { AgentIdSchema, parseOrThrow } from '../../task/index.js';
import type { Embedder } from '../embedding/embedder.js';
import { halfPrecision } from '../embedding/vectors.js';
import { runCompression } from './compressionRun.js';
import { checkNewFact, checkSearch } from './factInput.js';
import { type FactLimitOptions, type FactLimits, limitsOf } from './factLimits.js';
import { type FactChange, FactRecords } from './factRecords.js';
import { type CompressionReport, type Fact, type FactHit, type NewFact, factIdOf, groupOf, labelOf, oldestFirst, visibleTo } from './factSchema.js';
import { FactSet } from './factSet.js';
import { indexFileOf } from './indexFile.js';
import { IndexSaver } from './indexSaver.js';
import { indexParams, loadFacts } from './loadFacts.js';
import { TurnBudget } from './turnBudget.js';
import { TurnGate } from './turnGate.js';
import { createVectorIndex } from './createVectorIndex.js';
import { embedMany, embedOne } from './factEmbedding.js';
import { IndexCatchUp } from './indexCatchUp.js';
import { mergedFact, storedFact } from './factEdits.js';
import type { VectorIndex } from './vectorIndex.js';
import { type Floors, candidateDepth, floorsOf, fuseChannels } from './hybridHits.js';
import { byVectors, byWordOverlap } from './similarChannel.js';

/** Facts `addMany` embeds and writes at a time: one embedding request and one transaction's worth of records. */
const batchFacts = 256;

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
  readonly #records: FactRecords;
  readonly #indexSaver: IndexSaver | null;
  readonly #limits: FactLimits;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #set: FactSet;
  readonly #writes = new Set<Promise<unknown>>();
  /** The compression running: every add waits for it, so it holds the store's size to its bound and its report counts every change. */
  #compression: Promise<CompressionReport> | undefined;
  /** Puts the vectors adds and imports left for the index into it. */
  readonly #catchUp: IndexCatchUp;
  /** Adds waiting for #compression, at most `maxWaitingAdds`. */
  #waitingAdds = 0;
  /** Spreads the synchronous sections of a burst of adds over turns of the event loop. */
  readonly #addGate = new TurnGate();
  #closing: Promise<void> | undefined;

  private constructor(options: FactStoreOptions, limits: FactLimits, records: FactRecords, loaded: Awaited<ReturnType<typeof loadFacts>>) {
    this.#agentId = options.agentId;
    this.#embedder = options.embedder;
    this.#records = records;
    this.#indexSaver =
      options.indexDir === null || options.embedder === null
        ? null
        : new IndexSaver(indexFileOf(options.indexDir, options.agentId, options.embedder), options.embedder, loaded.savedGeneration);
    this.#limits = limits;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#set = new FactSet(loaded, options.embedder === null);
    const untilIndexSaved = (): Promise<void> => this.#untilIndexSaved();
    this.#catchUp = new IndexCatchUp({ agentId: this.#agentId, set: this.#set, gate: this.#addGate, untilIndexSaved, logger: this.#logger });
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
   * the index in a later turn of the event loop (see IndexCatchUp), or at once when `maxUnindexed`
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
      if (this.#compression === undefined) {
        // From here on, synchronous until the write is issued: nothing can come between the check and the change.
        const twin = this.#twinOf(fact, vector, index);
        if (twin !== undefined) return this.#mergeInto(twin, fact);
        if (this.#set.size < this.#limits.compressAbove) return this.#insert(fact, vector, index);
        // The compression this add waited for failed and left no room: another would most likely fail too.
        if (failed !== undefined) throw failed.error;
        void this.#startCompression(true);
      }
      failed = await this.#waitForCompression();
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
    const added: { fact: Fact; merged: boolean }[] = [];
    const writes: Promise<void>[] = [];
    for (let start = 0; start < facts.length; start += batchFacts) {
      const batch = facts.slice(start, start + batchFacts);
      const vectors = await embedMany(
        this.#embedder,
        batch.map(({ fact }) => fact.text),
      );
      const index =
        vectors === null ? null : await (this.#set.index ??= createVectorIndex(indexParams(this.#embedder?.dimension ?? 0, this.#limits), this.#logger));
      let next = 0;
      while (next < batch.length) {
        await this.#readyForBatch();
        this.#refuseWhenFull(facts.length - added.length);
        // Synchronous from here until the write is issued, as in `add`; as many facts as the turn's slice has room for.
        const change = { putFacts: [] as Fact[], putVectors: [] as { id: string; embedder: string; vector: Float32Array }[] };
        do {
          const { fact, merge } = batch[next] as (typeof batch)[number];
          const vector = vectors?.[next] ?? null;
          const twin = merge ? this.#twinOf(fact, vector, index) : undefined;
          // Turns are not merged, so nothing searches for their twins: their vectors go into the index later.
          const stored = twin === undefined ? this.#placed(fact, vector, index, !merge) : this.#merge(twin, fact);
          change.putFacts.push(stored);
          if (twin === undefined && vector !== null && this.#embedder !== null) change.putVectors.push({ id: stored.id, embedder: this.#embedder.id, vector });
          added.push({ fact: stored, merged: twin !== undefined });
          next++;
        } while (next < batch.length && this.#addGate.admits());
        if (change.putVectors.length > 0) this.#set.bumpGeneration();
        writes.push(this.#writeParts([{ ...change, meta: this.#set.meta }]));
      }
    }
    // Once the whole import is stored: indexing between its batches would only slow it down.
    this.#catchUp.start();
    await Promise.all(writes);
    return added;
  }

  /** Resolves when a batch of `addMany` may change the store: no index save or compression runs, and the turn's slice has room. */
  async #readyForBatch(): Promise<void> {
    for (;;) {
      this.#refuseWhenClosed();
      if (this.#saving !== undefined) await this.#saving;
      else if (this.#compression !== undefined) await this.#compression.catch(() => undefined);
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
    while (this.#saving !== undefined || this.#compression !== undefined) {
      await this.#saving;
      await this.#compression?.catch(() => undefined);
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
    await this.#write({ removeFacts: held.map((fact) => fact.id), meta: this.#set.meta });
    return held.map((fact) => fact.id);
  }

  /** The fact that holds `id` since it was merged into it, if any. */
  mergedInto(id: string): Fact | undefined {
    return this.#set.all().find((fact) => fact.mergedFrom.includes(id));
  }

  /** Refused when `count` more facts would take the store past `compressAbove`. */
  #refuseWhenFull(count: number): void {
    const { compressAbove } = this.#limits;
    if (this.#set.size + count <= compressAbove) return;
    throw new TroupeError(
      'memory_full',
      `agent ${this.#agentId} holds ${this.#set.size} facts: ${count} more would be past compressAbove (${compressAbove}); ` +
        `store fewer, or raise memory.facts.compressAbove (at most maxFacts, ${this.#limits.maxFacts})`,
      { context: { agentId: this.#agentId } },
    );
  }

  /** A new fact in the set (room for it was checked); its record is the caller's to write. */
  #placed(fact: NewFact, vector: Float32Array | null, index: VectorIndex | null, deferIndex = false): Fact {
    const stored = storedFact(fact, this.#set.takeId(), this.#clock.now(), this.#embedder);
    this.#set.insert(stored, vector, index, deferIndex);
    return stored;
  }

  /** `twin` with `fact` merged into it (see mergedFact), updated in the set; its record is the caller's to write. */
  #merge(twin: Fact, fact: NewFact): Fact {
    const merged = mergedFact(twin, fact, this.#set.takeId(), this.#limits);
    this.#set.update(merged);
    return merged;
  }

  /**
   * Stores a new fact (room for it was checked) and resolves once it is on disk. Its vector waits
   * for the index, off the caller's path, unless `maxUnindexed` already do: the record and the
   * vector are written either way, so what an add acknowledged never depends on the index.
   */
  async #insert(fact: NewFact, vector: Float32Array | null, index: VectorIndex | null): Promise<{ fact: Fact; merged: boolean }> {
    const deferIndex = this.#set.vectors.unindexed < this.#limits.maxUnindexed;
    const stored = this.#placed(fact, vector, index, deferIndex);
    if (deferIndex) this.#catchUp.start();
    if (vector !== null) this.#set.bumpGeneration();
    const putVectors = vector === null || this.#embedder === null ? [] : [{ id: stored.id, embedder: this.#embedder.id, vector }];
    await this.#write({ putFacts: [stored], putVectors, meta: this.#set.meta });
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
  async search(text: string, k: number, filter: { sessionId: string | null; minSimilarity?: number; minKeywordScore?: number }): Promise<FactHit[]> {
    this.#refuseWhenClosed();
    const query = checkSearch(text, k, { sessionId: filter.sessionId }, this.#limits);
    const found = await this.#nearest(query.text, query.k, query.sessionId, floorsOf(filter));
    const hits = found.map(({ fact, similarity, channels }) => {
      const retrieved = { ...fact, retrievals: fact.retrievals + 1 };
      this.#set.update(retrieved);
      return { fact: retrieved, similarity, channels };
    });
    // Not waited for: a lost retrieval count only makes a fact look a little less used. A failure is logged by #write.
    if (hits.length > 0) this.#write({ putFacts: hits.map((hit) => hit.fact) }).catch(() => undefined);
    return hits;
  }

  /**
   * As `search`, but a look at what the agent remembers rather than a use of it: no retrieval is
   * counted, nothing is written, and without `sessionId` every fact of every session is searched.
   * The default floors apply.
   */
  async peek(text: string, k: number, filter: { sessionId?: string | null } = {}): Promise<FactHit[]> {
    this.#refuseWhenClosed();
    const { sessionId } = filter;
    const query = checkSearch(text, k, { sessionId: sessionId ?? null }, this.#limits);
    return this.#nearest(query.text, query.k, sessionId, floorsOf({}));
  }

  /** The `k` facts a reader of `sessionId` may see (see visibleTo) that best match `text` by both channels, best first. */
  async #nearest(text: string, k: number, sessionId: string | null | undefined, floors: Floors): Promise<FactHit[]> {
    if (this.#set.size === 0) return [];
    const depth = candidateDepth(k);
    const admits = (id: string): boolean => {
      const fact = this.#set.get(id);
      return fact !== undefined && visibleTo(fact, sessionId);
    };
    const ranked =
      this.#set.words !== null ? byWordOverlap(this.#set, text, depth, admits) : await byVectors(this.#set, this.#embedder, text, depth, sessionId);
    // Closed while the query was embedded: no retrieval may be written after close.
    this.#refuseWhenClosed();
    if (ranked === null) return [];
    return fuseChannels({ ...ranked, keyword: this.#set.keywords.nearest(text, depth, admits) }, k, floors).flatMap(({ id, similarity, channels }) => {
      const fact = this.#set.get(id);
      return fact === undefined ? [] : [{ fact, similarity, channels }];
    });
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
    return this.#set.size > this.#limits.compressAbove;
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
    while (this.#compression !== undefined) await this.#compression.catch(() => undefined);
    return this.#startCompression(false);
  }

  /** Waits for every change in flight, then saves the index file if it changed (a reopen need not rebuild it); the store stays open. */
  async flush(): Promise<void> {
    // A compression changes the index between its writes: the file is saved only when none runs.
    while (this.#compression !== undefined || this.#writes.size > 0 || this.#catchUp.running) {
      await this.#compression?.catch(() => undefined);
      await Promise.allSettled([...this.#writes]);
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
   * Resolves once no index file is being saved. Only a compression may await it before it changes
   * the index (it costs a microtask even when no save runs): no save starts while one runs (see flush).
   */
  async #untilIndexSaved(): Promise<void> {
    while (this.#saving !== undefined) await this.#saving;
  }

  #refuseWhenClosed(): void {
    if (this.#closing !== undefined)
      throw new TroupeError('internal', `the L4 fact store of agent ${this.#agentId} is closed`, { context: { agentId: this.#agentId } });
  }

  /** A stored fact of the same scope and session at least `mergeThreshold` close to `fact`. */
  #twinOf(fact: NewFact, vector: Float32Array | null, index: VectorIndex | null): Fact | undefined {
    const group = groupOf(fact);
    const sameGroup = (found: Fact | undefined): found is Fact => found !== undefined && groupOf(found) === group;
    const [nearest] =
      vector === null || index === null
        ? (this.#set.words?.nearest(fact.text, 1, (id) => sameGroup(this.#set.get(id))) ?? [])
        : this.#set.vectors.nearest(index, vector, 1, [group]).map((hit) => ({ id: factIdOf(hit.label), similarity: hit.similarity }));
    return nearest !== undefined && nearest.similarity >= this.#limits.mergeThreshold ? this.#set.get(nearest.id) : undefined;
  }

  async #mergeInto(twin: Fact, fact: NewFact): Promise<{ fact: Fact; merged: boolean }> {
    const merged = this.#merge(twin, fact);
    await this.#write({ putFacts: [merged], meta: this.#set.meta });
    return { fact: merged, merged: true };
  }

  /**
   * Starts a compression (none runs): `makeRoom`, for an add that found the store full, which logs
   * its report or its failure (the add that started it may have been refused meanwhile); otherwise
   * for `compress()`, whose caller gets both. The index is compacted before adds resume.
   */
  #startCompression(makeRoom: boolean): Promise<CompressionReport> {
    const [set, embedder, limits, clock, logger] = [this.#set, this.#embedder, this.#limits, this.#clock, this.#logger];
    const writes = { untilIndexSaved: () => this.#untilIndexSaved(), writeParts: (parts: readonly FactChange[]) => this.#writeParts(parts) };
    // Clusters are found through the index: the vectors an import left for it go in first.
    const run = this.#catchUp
      .done()
      .then(() => runCompression({ agentId: this.#agentId, set, embedder, limits, clock, logger, ...writes }, makeRoom))
      .then((done) => set.compactIndex(new TurnBudget(writes.untilIndexSaved)).then(() => done))
      .finally(() => {
        this.#compression = undefined;
      });
    this.#compression = run;
    if (makeRoom) {
      run.then(
        // One line a compression, which frees at least compressAbove − keepTopN slots: at most one per that many adds.
        (done) => this.#logger.info({ agentId: this.#agentId, ...done }, 'L4 compressed to make room for adds'),
        (error: unknown) => this.#logger.error({ agentId: this.#agentId, error: describeError(error) }, 'an L4 compression to make room for adds failed'),
      );
    }
    return run;
  }

  /**
   * Waits for the running compression, as one of at most `maxWaitingAdds` adds (one more is
   * refused with `memory_full`); says how it failed, if it did.
   */
  async #waitForCompression(): Promise<{ error: unknown } | undefined> {
    const running = this.#compression;
    if (running === undefined) return undefined;
    if (this.#waitingAdds >= this.#limits.maxWaitingAdds) {
      throw new TroupeError(
        'memory_full',
        `agent ${this.#agentId} holds ${this.#set.size} facts while a compression runs, and ${this.#waitingAdds} adds already wait for it, its limit (maxWaitingAdds); try again later`,
        { context: { agentId: this.#agentId } },
      );
    }
    this.#waitingAdds++;
    try {
      await running;
      return undefined;
    } catch (error) {
      return { error };
    } finally {
      this.#waitingAdds--;
    }
  }

  /** Writes a change (one transaction), tracked so that `close` waits for it; a failed write is logged and rethrown. */
  #write(change: FactChange): Promise<void> {
    return this.#tracked(this.#records.write(change));
  }

  /** Writes a compression's changes in bounded transactions (see FactRecords.writeInParts), each with the bookkeeping as it is then; tracked as #write is. */
  #writeParts(parts: readonly FactChange[]): Promise<void> {
    return this.#tracked(this.#records.writeInParts(parts, () => this.#set.meta));
  }

  async #tracked(writing: Promise<void>): Promise<void> {
    const write = writing.catch((error: unknown) => {
      this.#logger.error({ agentId: this.#agentId, error: describeError(error) }, 'an L4 memory write failed; memory holds what the disk may not');
      throw new TroupeError('internal', `could not store agent ${this.#agentId}'s L4 facts: ${describeError(error)}`, { cause: error });
    });
    this.#writes.add(write);
    try {
      await write;
    } finally {
      this.#writes.delete(write);
    }
  }
}

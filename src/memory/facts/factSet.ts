import { type Fact, type FactMeta, factIdOf, groupOf, groupsVisibleTo, labelOf } from './factSchema.js';
import { GroupedVectors } from './groupedVectors.js';
import type { LoadedFacts } from './loadFacts.js';
import type { TurnBudget } from './turnBudget.js';
import { dropDeleted } from './hnswIndex.js';
import type { VectorIndex } from './vectorIndex.js';
import { WordOverlapIndex } from './wordOverlap.js';
import { FactKeywordIndex } from './factKeywordIndex.js';
import { FactLinks } from './factLinks.js';

/**
 * One agent's L4 as it is in memory: its facts by id, the index over their vectors (made on the
 * first vector) with the JS copies of the vectors by group that searches within a session use,
 * the word index that stands in for them without an embedder, the keyword (BM25) index over the
 * facts' texts, rebuilt here from the facts at every open, and the bookkeeping (next id,
 * generation of the vectors). Every change to a fact goes through here, so they never disagree;
 * what is written to LMDB is the caller's part.
 */
export class FactSet {
  readonly #facts: Map<string, Fact>;
  readonly words: WordOverlapIndex | null;
  readonly keywords = new FactKeywordIndex();
  readonly vectors = new GroupedVectors();
  /** Each conversation's turns in order and each Task's facts: what a search's graph channel follows from a fact. */
  readonly links: FactLinks;
  meta: FactMeta;
  /** The index, once there is (or is being made) one. */
  index: Promise<VectorIndex> | null;
  /** The ids of each group's facts (a session's, or the agent-scope ones: see groupOf). */
  readonly #groups = new Map<string, Set<string>>();

  constructor(loaded: LoadedFacts, withWords: boolean) {
    this.#facts = loaded.facts;
    this.meta = loaded.meta;
    this.index = loaded.index === null ? null : Promise.resolve(loaded.index);
    this.words = withWords ? new WordOverlapIndex() : null;
    for (const fact of this.#facts.values()) {
      this.#grouped(fact);
      this.words?.add(fact.id, fact.text);
      this.keywords.add(fact.id, fact.text);
      const vector = loaded.vectors.get(fact.id);
      const label = labelOf(fact.id);
      if (vector !== undefined) this.vectors.add(label, groupOf(fact), vector, loaded.outside.has(label) ? 'outside' : undefined);
    }
    this.links = FactLinks.of(this.#facts.values());
  }

  get size(): number {
    return this.#facts.size;
  }

  get(id: string): Fact | undefined {
    return this.#facts.get(id);
  }

  all(): Fact[] {
    return [...this.#facts.values()];
  }

  /** A fresh fact id, never given before in this agent's store. */
  takeId(): string {
    const id = factIdOf(this.meta.nextId);
    this.meta = { ...this.meta, nextId: this.meta.nextId + 1 };
    return id;
  }

  /** Marks a change of the stored vectors (an index saved before it is stale). */
  bumpGeneration(): void {
    this.meta = { ...this.meta, generation: this.meta.generation + 1 };
  }

  /**
   * Adds a fact; its vector goes into the index now, or when `deferredBy` an add or an import later
   * (`indexSome`), or is kept `outside` it (see GroupedVectors.smallGroup): until then, or while
   * it is, searches compare with it directly.
   */
  insert(fact: Fact, vector: Float32Array | null, index: VectorIndex | null, deferredBy?: 'add' | 'import' | 'outside'): void {
    this.#facts.set(fact.id, fact);
    this.#grouped(fact);
    if (vector !== null && index !== null) {
      if (deferredBy === undefined) index.add(labelOf(fact.id), vector);
      this.vectors.add(labelOf(fact.id), groupOf(fact), vector, deferredBy);
    }
    this.words?.add(fact.id, fact.text);
    this.keywords.add(fact.id, fact.text);
    this.links.add(fact);
  }

  /** Puts vectors that wait for the index into it, oldest first, while `more()` says so; returns how many are left. */
  indexSome(index: VectorIndex, more: () => boolean): number {
    for (let label = this.vectors.nextUnindexed(); label !== undefined && more(); label = this.vectors.nextUnindexed()) {
      const vector = this.vectors.vectorOf(label);
      if (vector !== undefined) index.add(label, vector);
      this.vectors.indexed(label);
    }
    return this.vectors.unindexed;
  }

  /** Replaces a stored fact by a new version with the same id, text and vector (its counts, importance, origins changed). */
  update(fact: Fact): void {
    const before = this.#facts.get(fact.id);
    this.#facts.set(fact.id, fact);
    // Its text is kept by every update today; were it not, the keyword index must follow it.
    if (before !== undefined && before.text !== fact.text) {
      this.words?.remove(fact.id, before.text);
      this.words?.add(fact.id, fact.text);
      this.keywords.add(fact.id, fact.text);
    }
    // A merge joins metadata (the Tasks it names may change); a retrieval count keeps the same object.
    if (before !== undefined && before.metadata !== fact.metadata) {
      this.links.remove(before);
      this.links.add(fact);
    }
  }

  /**
   * Rebuilds the index without the vectors it holds only as deleted, when they are many (see
   * dropDeleted). Only compressions remove, so between two the index holds at most twice
   * `compressAbove` slots. The caller keeps the index from changing meanwhile (adds
   * wait for a compression).
   */
  async compactIndex(budget: TurnBudget): Promise<void> {
    const index = await this.index;
    // Those waiting for the index are left to the catch-up: the rebuild is of what the index holds.
    if (index !== null) await dropDeleted(index, this.vectors.indexedByLabel(), budget);
  }

  /** The ids of the facts a reader of `sessionId` may see (see visibleTo); undefined for every fact (no session given). */
  idsVisibleTo(sessionId: string | null | undefined): string[] | undefined {
    return groupsVisibleTo(sessionId)?.flatMap((group) => [...(this.#groups.get(group) ?? [])]);
  }

  /** How many facts a reader of `sessionId` may see. */
  visibleCount(sessionId: string | null | undefined): number {
    return groupsVisibleTo(sessionId)?.reduce((sum, group) => sum + (this.#groups.get(group)?.size ?? 0), 0) ?? this.#facts.size;
  }

  #grouped(fact: Fact): void {
    const group = groupOf(fact);
    let ids = this.#groups.get(group);
    if (ids === undefined) this.#groups.set(group, (ids = new Set()));
    ids.add(fact.id);
  }

  remove(fact: Fact, index: VectorIndex | null): void {
    this.#facts.delete(fact.id);
    const ids = this.#groups.get(groupOf(fact));
    ids?.delete(fact.id);
    if (ids?.size === 0) this.#groups.delete(groupOf(fact));
    if (!this.vectors.isUnindexed(labelOf(fact.id))) index?.remove(labelOf(fact.id));
    this.vectors.remove(labelOf(fact.id));
    this.words?.remove(fact.id, fact.text);
    this.keywords.remove(fact.id);
    this.links.remove(fact);
  }
}

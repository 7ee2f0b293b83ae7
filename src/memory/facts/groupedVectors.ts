import { nearestByComparison, unit } from './unitVectors.js';
import type { Neighbour, VectorIndex } from './vectorIndex.js';

/**
 * Below this many candidates a search compares the query with each of them directly. hnswlib
 * calls a JS filter for every node it visits and keeps visiting until `k` pass, so a filter that
 * admits one session's few facts among thousands turns each search into a crawl of the whole
 * graph (17 ms at 20,000 vectors when 1 in 1,000 passes, against 0.6 ms unfiltered); a direct
 * comparison of 2,000 unit vectors of 384 numbers costs well under a millisecond.
 */
const directUpTo = 2048;
/** A filter that admits fewer than this share of the index also searches directly: hnswlib would visit most of the graph for it. */
const directBelowShare = 0.1;

/**
 * The vectors of one agent's facts as JS copies (unit length), with the labels of each group
 * (one session's facts, or the agent-scope ones), so that a search confined to a few groups
 * never has hnswlib filter the whole graph. The copies cost 4 bytes a dimension per fact, beside
 * hnswlib's own; they also spare compression a native `getPoint` (about 30 µs) per fact.
 */
export class GroupedVectors {
  readonly #vectors = new Map<number, Float32Array>();
  readonly #groups = new Map<string, Set<number>>();
  readonly #groupOf = new Map<number, string>();
  /** Labels whose vectors are here but not in the index yet (indexed in the background): searches compare with them directly. */
  readonly #unindexed = new Set<number>();
  /** Those of them an add (not an import) left: what an import's near-duplicate check compares with directly (see `nearest`). */
  readonly #unindexedAdds = new Set<number>();
  /** Those of them kept out of the index, not waiting for it: their group's searches compare with each directly (see smallGroup). */
  readonly #outside = new Set<number>();
  /** The same labels in the order they came, from `#next` on (taking the oldest from a Set that many were deleted from walks every hole). */
  #queue: number[] = [];
  #next = 0;

  get size(): number {
    return this.#vectors.size;
  }

  /** How many vectors wait to be put in the index (not those kept out of it). */
  get unindexed(): number {
    return this.#unindexed.size - this.#outside.size;
  }

  /** The labels of the vectors kept out of the index (see smallGroup). */
  get outside(): ReadonlySet<number> {
    return this.#outside;
  }

  /** How many of them an import left. */
  get unindexedImported(): number {
    return this.#unindexed.size - this.#unindexedAdds.size;
  }

  /** Whether `label`'s vector is here but not in the index (waiting for it, or kept out of it). */
  isUnindexed(label: number): boolean {
    return this.#unindexed.has(label);
  }

  /** The oldest label waiting for the index, if any. */
  nextUnindexed(): number | undefined {
    while (this.#next < this.#queue.length && !this.#waits(this.#queue[this.#next] as number)) this.#next++;
    if (this.#next === this.#queue.length) {
      [this.#queue, this.#next] = [[], 0];
      return undefined;
    }
    if (this.#next > 1024 && this.#next * 2 > this.#queue.length) [this.#queue, this.#next] = [this.#queue.slice(this.#next), 0];
    return this.#queue[this.#next];
  }

  #waits(label: number): boolean {
    return this.#unindexed.has(label) && !this.#outside.has(label);
  }

  /** `label`'s vector is in the index now. */
  indexed(label: number): void {
    this.#unindexed.delete(label);
    this.#unindexedAdds.delete(label);
    this.#outside.delete(label);
  }

  /** Every vector by its label. */
  get byLabel(): ReadonlyMap<number, Float32Array> {
    return this.#vectors;
  }

  /**
   * Keeps `vector` for `label` in `group`; `waiting` when the index does not hold it: left by an
   * add or an import for the index to take later, or kept `outside` it. Once a group grows past
   * what its searches compare directly, its vectors kept outside wait for the index like the rest.
   */
  add(label: number, group: string, vector: Float32Array, waiting?: 'add' | 'import' | 'outside'): void {
    this.remove(label);
    if (waiting !== undefined) {
      this.#unindexed.add(label);
      if (waiting !== 'import') this.#unindexedAdds.add(label);
      if (waiting === 'outside') this.#outside.add(label);
      else this.#queue.push(label);
    }
    this.#vectors.set(label, unit(vector));
    this.#groupOf.set(label, group);
    let labels = this.#groups.get(group);
    if (labels === undefined) this.#groups.set(group, (labels = new Set()));
    labels.add(label);
    if (labels.size === directUpTo + 1 && this.#outside.size > 0) this.#bind(labels);
  }

  /** Every vector kept outside the index waits for it now (a compression is to search their groups through it). */
  bindAll(): void {
    this.#bind([...this.#outside]);
  }

  /** The vectors of `labels` kept outside the index wait for it now: their group is searched through it. */
  #bind(labels: Iterable<number>): void {
    for (const label of labels) {
      if (!this.#outside.delete(label)) continue;
      this.#queue.push(label);
    }
  }

  remove(label: number): void {
    const group = this.#groupOf.get(label);
    if (group === undefined) return;
    this.indexed(label);
    this.#vectors.delete(label);
    this.#groupOf.delete(label);
    const labels = this.#groups.get(group);
    labels?.delete(label);
    if (labels?.size === 0) this.#groups.delete(group);
  }

  /** The group of `label`'s vector. */
  groupOf(label: number): string | undefined {
    return this.#groupOf.get(label);
  }

  /** The unit vector stored for `label`. */
  vectorOf(label: number): Float32Array | undefined {
    return this.#vectors.get(label);
  }

  /**
   * Up to `k` labels nearest to `query` among the facts of `groups` (of every fact when undefined),
   * nearest first: through hnswlib when the candidates are many and a good share of the index,
   * otherwise by comparing the query with each candidate. Vectors waiting for the index are
   * compared directly; with `skipImported`, only those adds left (an import matches its own
   * facts by other means: comparing each with every one before it would cost the square of its
   * size).
   */
  nearest(index: VectorIndex, query: Float32Array, k: number, groups?: readonly string[], skipImported = false): Neighbour[] {
    const waiting = skipImported ? this.#unindexedAdds : this.#unindexed;
    const sets = groups?.flatMap((group) => this.#groups.get(group) ?? []);
    const count = sets?.reduce((sum, labels) => sum + labels.size, 0);
    if (sets === undefined || count === undefined || count === this.#vectors.size) return this.#withUnindexed(index.nearest(query, k), query, k, waiting);
    const admits = (label: number): boolean => sets.some((labels) => labels.has(label));
    if (this.#comparedDirectly(count)) {
      const candidates = sets.flatMap((labels) => [...labels]).filter((label) => !this.#unindexed.has(label) || waiting.has(label));
      return this.#compareEach(query, k, candidates);
    }
    return this.#withUnindexed(index.nearest(query, k, admits), query, k, waiting, admits);
  }

  /** Whether a search among `count` candidates (fewer than all) compares with each directly rather than searching the index. */
  #comparedDirectly(count: number): boolean {
    return count <= directUpTo || count < directBelowShare * this.#vectors.size;
  }

  /**
   * Whether a vector of `group` may stay outside the index: one more in it, a search within it
   * still compares with each of its vectors directly (see nearest), so the index would never be
   * read for them. A search of the whole store (a view of memory, not a turn's) compares with every
   * such vector, at most `compressAbove`.
   */
  smallGroup(group: string): boolean {
    return (this.#groups.get(group)?.size ?? 0) + 1 <= directUpTo;
  }

  /**
   * Whether a search within any one group compares with its vectors directly, never reading the
   * index: what a compression's search for clusters does, one group at a time.
   */
  get groupsComparedDirectly(): boolean {
    for (const labels of this.#groups.values()) if (labels.size === this.#vectors.size || !this.#comparedDirectly(labels.size)) return false;
    return true;
  }

  /** The vectors the index holds (not those waiting for it), by label: what a rebuild of the index is made of. */
  indexedByLabel(): Map<number, Float32Array> {
    if (this.#unindexed.size === 0) return new Map(this.#vectors);
    return new Map([...this.#vectors].filter(([label]) => !this.#unindexed.has(label)));
  }

  /** `found` in the index, with the vectors of `waiting` compared directly (those `admits`), the `k` nearest. */
  #withUnindexed(found: Neighbour[], query: Float32Array, k: number, waiting: ReadonlySet<number>, admits?: (label: number) => boolean): Neighbour[] {
    if (waiting.size === 0) return found;
    const compared = admits === undefined ? waiting : [...waiting].filter(admits);
    return [...found, ...this.#compareEach(query, k, compared)].sort((a, b) => b.similarity - a.similarity).slice(0, k);
  }

  #compareEach(query: Float32Array, k: number, candidates: Iterable<number>): Neighbour[] {
    return nearestByComparison(unit(query), k, candidates, (label) => this.#vectors.get(label));
  }
}

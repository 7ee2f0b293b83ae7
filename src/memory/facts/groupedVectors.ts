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
  /** Labels whose vectors are here but not in the index yet (an import's, indexed in the background): searches compare with them directly. */
  readonly #unindexed = new Set<number>();
  /** The same labels in the order they came, from `#next` on (taking the oldest from a Set that many were deleted from walks every hole). */
  #queue: number[] = [];
  #next = 0;

  get size(): number {
    return this.#vectors.size;
  }

  /** How many vectors wait to be put in the index. */
  get unindexed(): number {
    return this.#unindexed.size;
  }

  /** Whether `label`'s vector is here but not in the index yet. */
  isUnindexed(label: number): boolean {
    return this.#unindexed.has(label);
  }

  /** The oldest label waiting for the index, if any. */
  nextUnindexed(): number | undefined {
    while (this.#next < this.#queue.length && !this.#unindexed.has(this.#queue[this.#next] as number)) this.#next++;
    if (this.#next === this.#queue.length) {
      [this.#queue, this.#next] = [[], 0];
      return undefined;
    }
    if (this.#next > 1024 && this.#next * 2 > this.#queue.length) [this.#queue, this.#next] = [this.#queue.slice(this.#next), 0];
    return this.#queue[this.#next];
  }

  /** `label`'s vector is in the index now. */
  indexed(label: number): void {
    this.#unindexed.delete(label);
  }

  /** Every vector by its label. */
  get byLabel(): ReadonlyMap<number, Float32Array> {
    return this.#vectors;
  }

  /** Keeps `vector` for `label` in `group`; `indexed: false` when the index does not hold it yet. */
  add(label: number, group: string, vector: Float32Array, indexed = true): void {
    this.remove(label);
    if (!indexed) {
      this.#unindexed.add(label);
      this.#queue.push(label);
    }
    this.#vectors.set(label, unit(vector));
    this.#groupOf.set(label, group);
    let labels = this.#groups.get(group);
    if (labels === undefined) this.#groups.set(group, (labels = new Set()));
    labels.add(label);
  }

  remove(label: number): void {
    const group = this.#groupOf.get(label);
    if (group === undefined) return;
    this.#unindexed.delete(label);
    this.#vectors.delete(label);
    this.#groupOf.delete(label);
    const labels = this.#groups.get(group);
    labels?.delete(label);
    if (labels?.size === 0) this.#groups.delete(group);
  }

  /** The unit vector stored for `label`. */
  vectorOf(label: number): Float32Array | undefined {
    return this.#vectors.get(label);
  }

  /**
   * Up to `k` labels nearest to `query` among the facts of `groups` (of every fact when undefined),
   * nearest first: through hnswlib when the candidates are many and a good share of the index,
   * otherwise by comparing the query with each candidate.
   */
  nearest(index: VectorIndex, query: Float32Array, k: number, groups?: readonly string[]): Neighbour[] {
    if (groups === undefined) return this.#withUnindexed(index.nearest(query, k), query, k);
    const candidates = groups.flatMap((group) => [...(this.#groups.get(group) ?? [])]);
    if (candidates.length === this.#vectors.size) return this.#withUnindexed(index.nearest(query, k), query, k);
    if (candidates.length <= directUpTo || candidates.length < directBelowShare * this.#vectors.size) return this.#compareEach(query, k, candidates);
    const admitted = new Set(candidates);
    return this.#withUnindexed(
      index.nearest(query, k, (label) => admitted.has(label)),
      query,
      k,
      (label) => admitted.has(label),
    );
  }

  /** `found` in the index, with the vectors the index does not hold yet compared directly (those `admits`), the `k` nearest. */
  #withUnindexed(found: Neighbour[], query: Float32Array, k: number, admits: (label: number) => boolean = () => true): Neighbour[] {
    if (this.#unindexed.size === 0) return found;
    const waiting = [...this.#unindexed].filter(admits);
    return [...found, ...this.#compareEach(query, k, waiting)].sort((a, b) => b.similarity - a.similarity).slice(0, k);
  }

  #compareEach(query: Float32Array, k: number, candidates: readonly number[]): Neighbour[] {
    return nearestByComparison(unit(query), k, candidates, (label) => this.#vectors.get(label));
  }
}

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

  get size(): number {
    return this.#vectors.size;
  }

  /** Every vector by its label. */
  get byLabel(): ReadonlyMap<number, Float32Array> {
    return this.#vectors;
  }

  add(label: number, group: string, vector: Float32Array): void {
    this.remove(label);
    this.#vectors.set(label, unit(vector));
    this.#groupOf.set(label, group);
    let labels = this.#groups.get(group);
    if (labels === undefined) this.#groups.set(group, (labels = new Set()));
    labels.add(label);
  }

  remove(label: number): void {
    const group = this.#groupOf.get(label);
    if (group === undefined) return;
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
    if (groups === undefined) return index.nearest(query, k);
    const candidates = groups.flatMap((group) => [...(this.#groups.get(group) ?? [])]);
    if (candidates.length === this.#vectors.size) return index.nearest(query, k);
    if (candidates.length <= directUpTo || candidates.length < directBelowShare * this.#vectors.size) return this.#compareEach(query, k, candidates);
    const admitted = new Set(candidates);
    return index.nearest(query, k, (label) => admitted.has(label));
  }

  #compareEach(query: Float32Array, k: number, candidates: readonly number[]): Neighbour[] {
    return nearestByComparison(unit(query), k, candidates, (label) => this.#vectors.get(label));
  }
}

import { functionWords, searchTerms } from '../../searchTerms.js';
import { keepBest } from '../keepBest.js';
import { KeywordPostings } from './keywordPostings.js';

/** BM25's term-frequency saturation and length normalisation, at their usual values (as routing's). */
const k1 = 1.2;
const b = 0.75;

/** Function words, and what an apostrophe leaves of a word ("Maya's", "don't", "we'll"). */
const stopWords: ReadonlySet<string> = new Set([...functionWords, 's', 't', 'd', 'll', 're', 've', 'm']);

/** The terms a fact's text is indexed by, and a query searched with (see searchTerms). */
function factTerms(text: string): string[] {
  return searchTerms(text, stopWords);
}

export interface KeywordMatch {
  readonly id: string;
  /**
   * BM25 divided by the most any fact could score on the query's terms that some fact has,
   * `Σ idf · (k1 + 1)`: in [0, 1), and comparable across queries of different lengths. Unlike
   * routing's, a query word no fact has is left out of that divisor: it says nothing about which
   * fact matches, and a question wraps its one telling word in many others ("did anything more
   * happen about QX7731 yesterday evening?").
   */
  readonly score: number;
}

/** Whether match `a` ranks below `b`: a lower score, or the same score and a later id. */
const below = (a: KeywordMatch, b: KeywordMatch): boolean => a.score < b.score || (a.score === b.score && a.id > b.id);

/** A query term as a search weighs it: its postings, idf, and the most it can add to a text's score. */
interface QueryTerm {
  readonly postings: KeywordPostings;
  readonly idf: number;
  readonly bound: number;
}

/**
 * L4's keyword channel: BM25 over the facts' texts, kept up to date as facts come and go (routing's
 * KeywordIndex is built once over a fixed set). A search touches only the texts sharing a term
 * with the query, in typed arrays (see KeywordPostings), and skips what cannot matter (MaxScore):
 * its terms go rarest first, and once the `k`-th best score so far is above what the terms left
 * could give a text not yet scored, those terms only add to the texts already scored; only a
 * text that would enter the best `k` is asked whether the reader may see it. The result is the
 * exact BM25 ranking. It lives in memory and is rebuilt from the facts when a store opens: it
 * costs about what reading their texts from LMDB costs (see docs/benchmarks.md, "L4 retrieval
 * quality"), and a file of it would have to be written on every add.
 */
export class FactKeywordIndex {
  readonly #postings = new Map<string, KeywordPostings>();
  /** Each text's slot; by slot, its id (undefined once removed), terms and their count. Slots are not given again until `#renumber`. */
  readonly #slots = new Map<string, number>();
  #ids: (string | undefined)[] = [];
  #terms: (readonly string[] | undefined)[] = [];
  #lengths: number[] = [];
  #totalLength = 0;
  /** At most the fewest terms a held text has (a removal does not raise it): what bounds a term's score. */
  #fewestTerms = Infinity;
  /** A search's running scores, and whether the reader may see each text (0 not asked, 1 yes, 2 no), by slot; zero between searches. */
  #scores = new Float64Array(64);
  #seen = new Int8Array(64);

  get size(): number {
    return this.#slots.size;
  }

  add(id: string, text: string): void {
    this.remove(id);
    if (this.#ids.length > 2 * this.#slots.size + 1024) this.#renumber();
    this.#addTerms(id, factTerms(text));
  }

  remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    const terms = this.#terms[slot] ?? [];
    this.#slots.delete(id);
    this.#ids[slot] = undefined;
    this.#terms[slot] = undefined;
    this.#totalLength -= terms.length;
    const held = (other: number): boolean => this.#ids[other] !== undefined;
    for (const term of new Set(terms)) {
      const postings = this.#postings.get(term);
      postings?.removed(held);
      if (postings?.live === 0) this.#postings.delete(term);
    }
  }

  /** The `k` facts `admits` accepts that score highest on `text`'s terms, best first (ties by id); none that shares no term. */
  nearest(text: string, k: number, admits: (id: string) => boolean): KeywordMatch[] {
    const size = this.#slots.size;
    if (size === 0 || k <= 0) return [];
    const { terms, most, average } = this.#queryTerms(text);
    if (this.#scores.length < this.#ids.length) [this.#scores, this.#seen] = [new Float64Array(this.#ids.length * 2), new Int8Array(this.#ids.length * 2)];
    const touched: number[] = [];
    const total = terms.reduce((sum, term) => sum + term.bound, 0);
    let remaining = total;
    let open = true;
    for (const [i, term] of terms.entries()) {
      // A text no term so far has scores at most `remaining`: once k texts score more, it cannot enter the best.
      // None can before the terms so far could give more than those left (the k-th is asked only then).
      if (open && i > 0 && total - remaining > remaining && touched.length >= k && this.#kthScore(touched, k, admits) > remaining) open = false;
      this.#score(term, average, touched, open);
      remaining -= term.bound;
    }
    const best: KeywordMatch[] = [];
    for (const slot of touched) {
      const match = { id: this.#ids[slot] as string, score: (this.#scores[slot] as number) / most };
      if ((best.length < k || below(best[0] as KeywordMatch, match)) && this.#admitted(slot, admits)) keepBest(best, match, k, below);
    }
    for (const slot of touched) [this.#scores[slot], this.#seen[slot]] = [0, 0];
    return best.sort((a, c) => c.score - a.score || (a.id < c.id ? -1 : 1));
  }

  /**
   * As `nearest`, over the texts of `ids` alone (all of which the reader may see), with the same
   * scores: one look-up per query term and text rather than a walk of every text sharing a term.
   * What a search confined to one session's few facts among many sessions' costs (see
   * FactSet.idsVisibleTo).
   */
  nearestAmong(text: string, k: number, ids: Iterable<string>): KeywordMatch[] {
    if (this.#slots.size === 0 || k <= 0) return [];
    const { terms, most, average } = this.#queryTerms(text);
    const [fixed, perTerm] = [k1 * (1 - b), (k1 * b) / average];
    const best: KeywordMatch[] = [];
    for (const id of ids) {
      const slot = this.#slots.get(id);
      if (slot === undefined) continue;
      const length = this.#lengths[slot] as number;
      // Summed in the order `nearest` sums, so a text scores the same to the last bit either way.
      let score = 0;
      for (const term of terms) {
        const count = term.postings.countOf(slot);
        if (count > 0) score += (term.idf * (k1 + 1) * count) / (count + fixed + perTerm * length);
      }
      if (score > 0) keepBest(best, { id, score: score / most }, k, below);
    }
    return best.sort((a, c) => c.score - a.score || (a.id < c.id ? -1 : 1));
  }

  /** `text`'s terms that some text holds, as a search weighs them (the likeliest to matter first), the most a text could score, and the texts' average length. */
  #queryTerms(text: string): { terms: QueryTerm[]; most: number; average: number } {
    const size = this.#slots.size;
    const average = Math.max(1, this.#totalLength / size);
    const shortest = k1 * (1 - b + (b * this.#fewestTerms) / average);
    const terms: QueryTerm[] = [];
    let most = 0;
    for (const term of new Set(factTerms(text))) {
      const postings = this.#postings.get(term);
      if (postings === undefined) continue;
      const idf = Math.log(1 + (size - postings.live + 0.5) / (postings.live + 0.5));
      most += idf * (k1 + 1);
      terms.push({ postings, idf, bound: (idf * postings.maxCount * (k1 + 1)) / (postings.maxCount + shortest) });
    }
    terms.sort((x, y) => y.bound - x.bound);
    return { terms, most, average };
  }

  /** Adds `term`'s share to the score of each text holding it: of every such text while `open`, else only of those already scored. */
  #score(term: QueryTerm, average: number, touched: number[], open: boolean): void {
    const { slots, counts, size } = term.postings;
    const [scores, ids, lengths] = [this.#scores, this.#ids, this.#lengths];
    const weight = term.idf * (k1 + 1);
    const [fixed, perTerm] = [k1 * (1 - b), (k1 * b) / average];
    // Few texts scored against a long list: look each up rather than walk it.
    if (!open && touched.length * Math.log2(size + 1) < size) {
      for (const slot of touched) {
        const count = term.postings.countOf(slot);
        if (count > 0) scores[slot] = (scores[slot] as number) + (weight * count) / (count + fixed + perTerm * (lengths[slot] as number));
      }
      return;
    }
    for (let j = 0; j < size; j++) {
      const slot = slots[j] as number;
      const score = scores[slot] as number;
      if (score === 0) {
        if (!open || ids[slot] === undefined) continue;
        touched.push(slot);
      }
      const count = counts[j] as number;
      scores[slot] = score + (weight * count) / (count + fixed + perTerm * (lengths[slot] as number));
    }
  }

  /** The `k`-th best score so far among the texts the reader may see (-Infinity when fewer). */
  #kthScore(touched: readonly number[], k: number, admits: (id: string) => boolean): number {
    const heap: number[] = [];
    for (const slot of touched) {
      const score = this.#scores[slot] as number;
      if ((heap.length < k || score > (heap[0] as number)) && this.#admitted(slot, admits)) keepBest(heap, score, k, (x, y) => x < y);
    }
    return heap.length < k ? -Infinity : (heap[0] as number);
  }

  #admitted(slot: number, admits: (id: string) => boolean): boolean {
    if (this.#seen[slot] === 0) this.#seen[slot] = admits(this.#ids[slot] as string) ? 1 : 2;
    return this.#seen[slot] === 1;
  }

  #addTerms(id: string, terms: readonly string[]): void {
    const slot = this.#ids.length;
    this.#slots.set(id, slot);
    this.#ids.push(id);
    this.#terms.push(terms);
    this.#lengths.push(terms.length);
    this.#totalLength += terms.length;
    this.#fewestTerms = Math.min(this.#fewestTerms, terms.length);
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, count] of counts) {
      let postings = this.#postings.get(term);
      if (postings === undefined) this.#postings.set(term, (postings = new KeywordPostings()));
      postings.add(slot, count);
    }
  }

  /** Numbers the held texts anew from 0, once removals left more than half the slots empty. */
  #renumber(): void {
    const held = [...this.#slots].map(([id, slot]) => [id, this.#terms[slot] ?? []] as const);
    this.#postings.clear();
    this.#slots.clear();
    [this.#ids, this.#terms, this.#lengths, this.#totalLength, this.#fewestTerms] = [[], [], [], 0, Infinity];
    for (const [id, terms] of held) this.#addTerms(id, terms);
  }
}

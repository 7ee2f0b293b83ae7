import { functionWords, searchTerms } from '../../searchTerms.js';

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

/**
 * L4's keyword channel: BM25 over the facts' texts, kept up to date as facts come and go (routing's
 * KeywordIndex is built once over a fixed set). Only the facts sharing a term with the query are
 * touched. It lives in memory and is rebuilt from the facts when a store opens: it costs about
 * what reading their texts from LMDB costs (see docs/benchmarks.md, "L4 retrieval quality"), and
 * a file of it would have to be written on every add.
 */
export class FactKeywordIndex {
  /** Each term's facts, with the term's count in each. */
  readonly #postings = new Map<string, Map<string, number>>();
  /** Each fact's terms (its length is their count): what a removal must take out. */
  readonly #terms = new Map<string, readonly string[]>();
  #totalLength = 0;

  get size(): number {
    return this.#terms.size;
  }

  add(id: string, text: string): void {
    this.remove(id);
    const terms = factTerms(text);
    this.#terms.set(id, terms);
    this.#totalLength += terms.length;
    for (const term of terms) {
      let facts = this.#postings.get(term);
      if (facts === undefined) this.#postings.set(term, (facts = new Map<string, number>()));
      facts.set(id, (facts.get(id) ?? 0) + 1);
    }
  }

  remove(id: string): void {
    const terms = this.#terms.get(id);
    if (terms === undefined) return;
    this.#terms.delete(id);
    this.#totalLength -= terms.length;
    for (const term of new Set(terms)) {
      const facts = this.#postings.get(term);
      facts?.delete(id);
      if (facts?.size === 0) this.#postings.delete(term);
    }
  }

  /** The `k` facts `admits` accepts that score highest on `text`'s terms, best first (ties by id); none that shares no term. */
  nearest(text: string, k: number, admits: (id: string) => boolean): KeywordMatch[] {
    const size = this.#terms.size;
    if (size === 0) return [];
    const averageLength = Math.max(1, this.#totalLength / size);
    const scores = new Map<string, number>();
    let most = 0;
    for (const term of new Set(factTerms(text))) {
      const facts = this.#postings.get(term);
      if (facts === undefined) continue;
      const idf = Math.log(1 + (size - facts.size + 0.5) / (facts.size + 0.5));
      most += idf * (k1 + 1);
      for (const [id, count] of facts) {
        const norm = k1 * (1 - b + (b * (this.#terms.get(id)?.length ?? 0)) / averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * count * (k1 + 1)) / (count + norm));
      }
    }
    const matches: KeywordMatch[] = [];
    for (const [id, score] of scores) if (admits(id)) matches.push({ id, score: score / most });
    return matches.sort((a, c) => c.score - a.score || (a.id < c.id ? -1 : 1)).slice(0, k);
  }
}

/** The distinct lower-cased words (letters and digits) of a text. */
export function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [],
  );
}

/** The cosine of two texts' word sets (see WordMatch), 0 when either has no word. */
export function wordCosine(a: string, b: string): number {
  const [left, right] = [wordsOf(a), wordsOf(b)];
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / Math.sqrt(left.size * right.size);
}

export interface WordMatch {
  readonly id: string;
  /** Shared words over the geometric mean of both word counts: the cosine of their word sets, 0..1. */
  readonly similarity: number;
}

/**
 * How L4 finds facts without an embedder: an inverted index from each word to the facts that use
 * it, so a query touches only the facts sharing a word with it, scored by word-set cosine.
 */
export class WordOverlapIndex {
  readonly #postings = new Map<string, Set<string>>();
  readonly #wordCounts = new Map<string, number>();

  add(id: string, text: string): void {
    const words = wordsOf(text);
    this.#wordCounts.set(id, words.size);
    for (const word of words) {
      let ids = this.#postings.get(word);
      if (ids === undefined) this.#postings.set(word, (ids = new Set()));
      ids.add(id);
    }
  }

  remove(id: string, text: string): void {
    this.#wordCounts.delete(id);
    for (const word of wordsOf(text)) {
      const ids = this.#postings.get(word);
      ids?.delete(id);
      if (ids?.size === 0) this.#postings.delete(word);
    }
  }

  /** The `k` facts sharing most words with `text` (relative to their lengths) among those `filter` accepts, best first; ties by id. */
  nearest(text: string, k: number, filter: (id: string) => boolean): WordMatch[] {
    const words = wordsOf(text);
    const shared = new Map<string, number>();
    for (const word of words) for (const id of this.#postings.get(word) ?? []) shared.set(id, (shared.get(id) ?? 0) + 1);
    const matches: WordMatch[] = [];
    for (const [id, count] of shared) {
      if (!filter(id)) continue;
      matches.push({ id, similarity: count / Math.sqrt(words.size * (this.#wordCounts.get(id) ?? 1)) });
    }
    return matches.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1)).slice(0, k);
  }
}

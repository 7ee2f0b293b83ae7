import type { RoutingCandidate } from './routingCandidate.js';
import { routingTerms } from './routingText.js';

/** BM25's term-frequency saturation and length normalisation, at their usual values. */
const k1 = 1.2;
const b = 0.75;

interface Posting {
  readonly candidate: number;
  /** The term's count in each field, times the field's weight, summed. */
  readonly weightedCount: number;
}

/**
 * BM25 over candidates whose fields are weighted (BM25F's simple form: a field's words count
 * `weight` times). Scores are divided by the most any candidate could score on the request's
 * terms, `Σ idf · (k1 + 1)`, so they lie in [0, 1) and mean the same whatever the request's
 * length: a request whose rarer words no candidate has scores low even when a common word matches.
 * A term no candidate has still counts in that divisor, with the idf of a term in no candidate.
 */
export class KeywordIndex {
  readonly #postings = new Map<string, Posting[]>();
  readonly #lengths: Float64Array;
  readonly #averageLength: number;
  readonly size: number;

  constructor(candidates: readonly RoutingCandidate[], fieldWeight: (field: string) => number) {
    this.size = candidates.length;
    this.#lengths = new Float64Array(candidates.length);
    let total = 0;
    candidates.forEach((candidate, index) => {
      const counts = new Map<string, number>();
      let length = 0;
      for (const [field, text] of Object.entries(candidate.fields)) {
        const weight = fieldWeight(field);
        if (weight <= 0) continue;
        for (const term of routingTerms(text)) {
          counts.set(term, (counts.get(term) ?? 0) + weight);
          length += weight;
        }
      }
      for (const [term, weightedCount] of counts) {
        const postings = this.#postings.get(term);
        if (postings === undefined) this.#postings.set(term, [{ candidate: index, weightedCount }]);
        else postings.push({ candidate: index, weightedCount });
      }
      this.#lengths[index] = length;
      total += length;
    });
    this.#averageLength = candidates.length === 0 || total === 0 ? 1 : total / candidates.length;
  }

  /** Each candidate's normalised score for `text`, by candidate index (0 for those sharing no term). */
  scores(text: string): Float64Array {
    const scores = new Float64Array(this.size);
    const terms = new Set(routingTerms(text));
    let most = 0;
    for (const term of terms) {
      const postings = this.#postings.get(term) ?? [];
      const idf = Math.log(1 + (this.size - postings.length + 0.5) / (postings.length + 0.5));
      most += idf * (k1 + 1);
      for (const { candidate, weightedCount } of postings) {
        const norm = k1 * (1 - b + (b * (this.#lengths[candidate] ?? 0)) / this.#averageLength);
        scores[candidate] = (scores[candidate] ?? 0) + (idf * weightedCount * (k1 + 1)) / (weightedCount + norm);
      }
    }
    if (most > 0) for (let i = 0; i < scores.length; i++) scores[i] = (scores[i] ?? 0) / most;
    return scores;
  }
}

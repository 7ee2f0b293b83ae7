import type { Embedder } from '../memory/embedding/embedder.js';
import { contentWords } from './routingText.js';

/**
 * The candidates' texts as unit vectors of one embedder, compared with a request's vector by
 * cosine similarity (a dot product, the vectors being unit length), clipped to [0, 1]. Every
 * candidate is compared: at a thousand candidates of 384 dimensions that is well under a
 * millisecond, cheaper than keeping an approximate index up to date as roles are added.
 * Speed: the vectors sit in one dimension-major array (all candidates' first coordinate, then
 * all their second …), and only the request's non-zero coordinates are visited, each adding its
 * share to every candidate's score in one pass over contiguous memory. A short request's hashed
 * n-gram vector has about half its coordinates at zero, so this halves the work of a full scan.
 */
export class SemanticIndex {
  private constructor(
    private readonly embedder: Embedder,
    private readonly matrix: Float32Array,
    private readonly dimension: number,
    private readonly size: number,
  ) {}

  static async build(embedder: Embedder, texts: readonly string[], signal?: AbortSignal): Promise<SemanticIndex> {
    const vectors = texts.length === 0 ? [] : await embedder.embed(texts.map(aboutText), signal === undefined ? {} : { signal });
    const dimension = vectors[0]?.length ?? embedder.dimension;
    const size = texts.length;
    const matrix = new Float32Array(size * dimension);
    vectors.forEach((vector, row) => {
      for (let i = 0; i < dimension; i++) matrix[i * size + row] = vector[i] ?? 0;
    });
    return new SemanticIndex(embedder, matrix, dimension, texts.length);
  }

  /** Each candidate's similarity to `text` in [0, 1], by candidate index. */
  async scores(text: string, signal?: AbortSignal): Promise<Float64Array> {
    const [query] = await this.embedder.embed([aboutText(text)], signal === undefined ? {} : { signal });
    const scores = new Float64Array(this.size);
    if (query === undefined) return scores;
    const { matrix, dimension, size } = this;
    const length = Math.min(dimension, query.length);
    for (let i = 0; i < length; i++) {
      const weight = query[i] as number;
      if (weight === 0) continue;
      for (let row = 0, at = i * size; row < size; row++, at++) scores[row] = (scores[row] as number) + weight * (matrix[at] as number);
    }
    for (let row = 0; row < size; row++) {
      const dot = scores[row] as number;
      scores[row] = dot < 0 ? 0 : dot > 1 ? 1 : dot;
    }
    return scores;
  }
}

/** What a text is about, as the embedder is given it: its content words, so the filler around a request does not pull it towards texts with the same filler. */
function aboutText(text: string): string {
  return contentWords(text).join(' ');
}

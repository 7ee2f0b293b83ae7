import { type Candidate, byScore, clip, contentWords, sentencesOf } from './sentences.js';

/** Bounds of `extractiveFacts`. */
export interface ExtractiveFactsOptions {
  /** Facts returned at most. */
  readonly maxFacts?: number;
  /** Longest fact, in characters. */
  readonly maxChars?: number;
}

/** The sentences of a summary, each under its speaker (`root: …`), from the ` | `-separated parts `extractiveSummary` writes. */
function statements(summary: string): string[] {
  return summary.split(/\s+\|\s+/).flatMap((part) => {
    const match = /^([^\s:]+(?: \([a-z]+\))?):\s+(.*)$/su.exec(part);
    const [speaker, said] = match === null ? [null, part] : [match[1], match[2] ?? ''];
    return sentencesOf(said).map((sentence) => (speaker === null ? sentence : `${speaker}: ${sentence}`));
  });
}

/**
 * Facts from L3 summaries that need no model: their sentences (each under its speaker),
 * best first by term frequency over all the summaries, without repeats (sentences with the
 * same content words), at most `maxFacts` (8) of at most `maxChars` (500) characters, returned
 * in their original order. At least one fact whenever a summary has any text. Deterministic.
 */
export function extractiveFacts(summaryTexts: readonly string[], options: ExtractiveFactsOptions = {}): string[] {
  const maxFacts = options.maxFacts ?? 8;
  const maxChars = options.maxChars ?? 500;
  const candidates: Candidate[] = summaryTexts.flatMap((summary, group) => statements(summary).map((text, index) => ({ text, group, index })));
  const seen = new Set<string>();
  const chosen: number[] = [];
  for (const i of byScore(candidates)) {
    if (chosen.length >= maxFacts) break;
    const text = candidates[i]?.text ?? '';
    const key = contentWords(text).sort().join(' ') || text;
    if (seen.has(key)) continue;
    seen.add(key);
    chosen.push(i);
  }
  return chosen.sort((a, b) => a - b).map((i) => clip(candidates[i]?.text ?? '', maxChars));
}

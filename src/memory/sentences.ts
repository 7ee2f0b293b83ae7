// Sentence scoring for the extractive fallbacks (summaries and facts made without a model):
// plain term frequency over the whole batch, so a sentence about what the batch keeps coming
// back to scores high. Deterministic: the same texts always give the same choice.

/** Characters of one text that are read at most: a 100,000-character Task costs no more than a long one. */
const maxCharsRead = 4_000;

const stopWords = new Set(
  (
    'a an the and or but if then else of to in on at by for with from as is are was were be been being it its this that these those ' +
    'i you he she we they me him her us them my your his our their what which who whom how why when where not no yes do does did ' +
    'done have has had will would can could should may might must shall so than too very just also into over about up out please'
  ).split(' '),
);

/** The content words of a text, lower-cased. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !stopWords.has(word) && (word.length > 1 || /\d/.test(word)));
}

/** Sentences of a text, whitespace collapsed: split after `.`, `!`, `?` (and their CJK forms) and at line breaks. */
export function sentencesOf(text: string): string[] {
  return text
    .slice(0, maxCharsRead)
    .split(/(?<=[.!?。！？])\s+|\s*\n\s*/u)
    .map((sentence) => sentence.replace(/\s+/g, ' ').trim())
    .filter((sentence) => sentence !== '');
}

/** A candidate sentence and where it stood (which text, which sentence of it). */
export interface Candidate {
  readonly text: string;
  readonly group: number;
  readonly index: number;
}

/**
 * Scores of the candidates, in their order: the summed batch frequency of a sentence's distinct
 * content words over the square root of their number (long sentences do not win by length
 * alone), half again for the first sentence of its text (where the point usually is), and a
 * little more for numbers and names (what facts are made of).
 */
function scoreSentences(candidates: readonly Candidate[]): number[] {
  const frequency = new Map<string, number>();
  const wordsOf = candidates.map((candidate) => [...new Set(contentWords(candidate.text))]);
  for (const words of wordsOf) for (const word of words) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  return candidates.map((candidate, i) => {
    const words = wordsOf[i] ?? [];
    if (words.length === 0) return 0;
    const sum = words.reduce((total, word) => total + (frequency.get(word) ?? 0), 0);
    const lead = candidate.index === 0 ? 1.5 : 1;
    const specifics = /\d|\s\p{Lu}/u.test(candidate.text) ? 1.2 : 1;
    return (sum / Math.sqrt(words.length)) * lead * specifics;
  });
}

/** Candidate positions, best score first; ties go to the earlier sentence. */
export function byScore(candidates: readonly Candidate[]): number[] {
  const scores = scoreSentences(candidates);
  return candidates.map((_, i) => i).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
}

/** `text` cut to at most `max` characters at a word boundary when there is one, ending in `…` when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  if (space > max / 2) cut = cut.slice(0, space);
  // Never leave half of a surrogate pair behind.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

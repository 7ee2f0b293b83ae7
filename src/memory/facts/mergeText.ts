import { wordsOf } from './wordOverlap.js';

/** Words too common to make a clause news (English; a clause in another language is judged by all its words). */
const commonWords = new Set(
  'the and for are was were has had have not but you your our its his her him she they them their this that these those with from who what which when where will would can could should than then into onto also just very more most some any all'.split(
    ' ',
  ),
);

/**
 * The text of a fact merged from `texts`, most important first: the first text whole, then every
 * clause of the others (split at `.`, `;`, `!`, `?` and line breaks) that brings a word of three
 * or more letters not yet said and not among the commonest English words, joined with "; ", as
 * long as it fits in `maxChars`. Deterministic: the same texts in the same order give the same
 * text, so a merge that failed its fidelity check fails the same way the next time.
 */
export function mergeText(texts: readonly string[], maxChars: number): string {
  const [first = '', ...rest] = texts.map((text) => text.trim());
  let merged = first.slice(0, maxChars);
  const said = wordsOf(merged);
  for (const clause of rest.flatMap(clausesOf)) {
    const news = [...wordsOf(clause)].filter((word) => word.length >= 3 && !commonWords.has(word) && !said.has(word));
    if (news.length === 0) continue;
    const joined = `${merged.replace(/[.;!?\s]+$/u, '')}; ${clause}`;
    if (joined.length > maxChars) continue;
    merged = joined;
    for (const word of wordsOf(clause)) said.add(word);
  }
  return merged;
}

function clausesOf(text: string): string[] {
  return text
    .split(/[.;!?\n]+/u)
    .map((clause) => clause.trim())
    .filter((clause) => clause !== '');
}

import { contentWordsOf, functionWords, searchTerms } from '../searchTerms.js';

/**
 * The words a routing text is scored on (see searchTerms): without function words and the filler
 * people put around a request ("could you find someone who can …"), each cut to a light stem.
 */
export function routingTerms(text: string): string[] {
  return searchTerms(text, stopWords);
}

/** The words of `text` that say what it is about: lower-cased, without function words and request filler, unstemmed. */
export function contentWords(text: string): string[] {
  return contentWordsOf(text, stopWords);
}

// English function words, and the words a request wraps around what it asks for.
const stopWords: ReadonlySet<string> = new Set([
  ...functionWords,
  ...'able help helps hi hello thanks thank like looking find anything person people agent let lets'.split(' '),
]);

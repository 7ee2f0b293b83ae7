/**
 * The words a text is scored on by a keyword search (routing's BM25, L4's keyword channel):
 * lower-cased letters and digits after Unicode folding, without the words in `stopWords`, each cut
 * to a light stem so "reviewer", "reviews" and "reviewing" meet at "review". The stemmer is
 * deliberately timid (a few English suffixes, stems of at least three letters): a wrong merge costs
 * more than a miss, which a semantic score still catches. Only "-ize" is made "-ise", so both
 * spellings meet. Lives at the root because routing and memory, sibling layers, both use it.
 */
export function searchTerms(text: string, stopWords: ReadonlySet<string>): string[] {
  return contentWordsOf(text, stopWords).map(stem);
}

/** The words of `text` that say what it is about: lower-cased, without `stopWords`, unstemmed. */
export function contentWordsOf(text: string, stopWords: ReadonlySet<string>): string[] {
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((word) => !stopWords.has(word));
}

const suffixes: readonly (readonly [string, string])[] = [
  ['ings', ''],
  ['ing', ''],
  ['ers', ''],
  ['er', ''],
  ['ies', 'y'],
  ['es', ''],
  ['ed', ''],
  ['s', ''],
];

function stem(spelt: string): string {
  if (spelt.length <= 4 || /\d/.test(spelt)) return spelt;
  // American and British spellings meet: "optimize" and "optimise", "analyze" and "analyse".
  const word = spelt.replace(/(i|y)z(e|es|ed|ing|er|ers|ation|ations)$/, '$1s$2');
  for (const [suffix, replacement] of suffixes) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, word.length - suffix.length) + replacement;
    if (base.length < 3 || (suffix === 's' && base.endsWith('s'))) continue;
    return base.endsWith('e') && base.length > 4 ? base.slice(0, -1) : base;
  }
  return word.endsWith('e') && word.length > 4 ? word.slice(0, -1) : word;
}

/** English function words: what no keyword search should match on. */
export const functionWords: ReadonlySet<string> = new Set(
  (
    'a about above after again all also am an and any anyone anybody are as at be because been being below between both but by can could ' +
    'did do does doing done for from further get got had has have having he her here him his how i if in into is it its just me more most ' +
    'my myself need needs no nor not now of off on once one only or other our out over own please same she should so some someone ' +
    'somebody something than that the their them then there these they this those through to too under until up us very want wants was we ' +
    'were what when where which while who whom why will with would you your yours'
  ).split(' '),
);

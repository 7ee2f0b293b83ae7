/** Characters that stand for themselves in a pattern. */
const plain = /[a-z0-9 _\-'",:;!%&=<>@#~`/]/i;
/** Escapes that stand for the character escaped (`\.`, `\-`, `\/`). */
const escapedLiteral = /[.\-/\\^$*+?()[\]{}|'"]/;

/** One atom of a pattern: the character it matches when it is a single literal one (else null), and where the next begins. */
interface Atom {
  readonly literal: string | null;
  readonly next: number;
}

/**
 * The longest run of lower-cased characters every match of `source` must contain, so a text
 * lacking it can be passed over without running the pattern: a prefilter in the manner of RE2's.
 * For a pattern of ASCII only compiled with the flag `i` alone (see `compilePattern`). Only the
 * top level is read (a group may be optional or repeated); a top-level `|` means no text is
 * required, and a run shorter than 3 would pass over too little to be worth the check. Undefined
 * when there is no such run.
 */
export function requiredLiteral(source: string): string | undefined {
  if (/[^\p{ASCII}]/u.test(source)) return undefined;
  const runs: string[] = [];
  let run = '';
  let depth = 0;
  for (let i = 0; i < source.length;) {
    const char = source[i];
    if (char === '|' && depth === 0) return undefined;
    let atom: Atom;
    if (char === '(' || char === ')') {
      depth = char === '(' ? depth + 1 : Math.max(0, depth - 1);
      atom = { literal: null, next: i + 1 };
    } else {
      // Escapes and classes are read whole at any depth, so `\(` or `[)]` never opens or closes a group.
      const read = atomAt(source, i);
      atom = depth > 0 ? { literal: null, next: read.next } : read;
    }
    const quantifier = source[atom.next];
    i = afterQuantifier(source, atom.next);
    if (atom.literal === null || quantifier === '?' || quantifier === '*' || quantifier === '{') {
      runs.push(run);
      run = '';
    } else if (quantifier === '+') {
      // What repeats may come between this character and the next: the run ends with it.
      runs.push(run + atom.literal);
      run = '';
    } else {
      run += atom.literal;
    }
  }
  runs.push(run);
  const longest = runs.reduce((best, candidate) => (candidate.length > best.length ? candidate : best), '');
  return longest.length >= 3 ? longest : undefined;
}

/** The atom starting at `at`, outside any group. */
function atomAt(source: string, at: number): Atom {
  const char = source[at] ?? '';
  if (char === '[') return { literal: null, next: closingBracket(source, at) + 1 };
  if (char !== '\\') return { literal: plain.test(char) ? char.toLowerCase() : null, next: at + 1 };
  const escaped = source[at + 1] ?? '';
  if (escapedLiteral.test(escaped)) return { literal: escaped, next: at + 2 };
  // `\x41`, `\u0041`, `\cJ`, `\k<name>`, `\12`: what they match is not the text written, so none is taken as literal.
  const skip = /^(x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\}|c[a-z]|k<[^>]*>|\d+|[pP]\{[^}]*\})/i.exec(source.slice(at + 1));
  return { literal: null, next: at + 1 + (skip?.[0].length ?? 1) };
}

/** Where the pattern goes on after any quantifier at `at` (`?`, `*`, `+`, `{n,m}`, each maybe lazy). */
function afterQuantifier(source: string, at: number): number {
  const char = source[at];
  let next = at;
  if (char === '?' || char === '*' || char === '+') next = at + 1;
  else if (char === '{') {
    const close = source.indexOf('}', at);
    next = close === -1 ? source.length : close + 1;
  } else return at;
  return source[next] === '?' ? next + 1 : next;
}

/** The index of the `]` closing the class opened at `open` (in JavaScript the first unescaped one: `[]` is a class); the pattern's last index when none does. */
function closingBracket(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']') return i;
  }
  return source.length - 1;
}

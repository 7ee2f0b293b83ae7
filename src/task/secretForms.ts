/**
 * How deep JSON strings nest in what troupe lets out: a tool's JSON result (1) kept as a string
 * in a Task (2) written into a JSON log line or event (3).
 */
const jsonDepth = 3;

/** The body of JSON string literal for `text`, escaped as `JSON.stringify` does it. */
const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1);

const hex4 = (code: number, upper: boolean): string => {
  const hex = code.toString(16).padStart(4, '0');
  return upper ? hex.toUpperCase() : hex;
};

/** JSON escaping with everything past ASCII as a `\u` escape with four hex digits too (`\u00e9`), as Python's `ensure_ascii` writes it (and Java, in upper case). */
const asciiJsonEscaped =
  (upper: boolean) =>
  (text: string): string =>
    jsonEscaped(text).replace(/[\u0080-\uffff]/g, (unit) => `\\u${hex4(unit.charCodeAt(0), upper)}`);

/** JSON escaping with `/` as `\/` too, as PHP's `json_encode` writes it. */
const slashJsonEscaped = (text: string): string => jsonEscaped(text).replaceAll('/', '\\/');

const jsonStyles: readonly ((text: string) => string)[] = [
  jsonEscaped,
  asciiJsonEscaped(false),
  asciiJsonEscaped(true),
  slashJsonEscaped,
  (text) => asciiJsonEscaped(false)(text).replaceAll('/', '\\/'),
];

/** A value in a URL's query as `URLSearchParams` and HTML forms write it: `+` for a space. */
const formEncoded = (text: string): string => new URLSearchParams([['', text]]).toString().slice(1);

/** `encode(text)`, or nothing for a text no URL can carry (a lone surrogate makes encodeURI throw). */
function percentEncoded(encode: (text: string) => string, text: string): string[] {
  try {
    const upper = encode(text);
    return [upper, upper.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())];
  } catch {
    return [];
  }
}

/**
 * Every form in which `secret` counts as appearing in a text: as is, or with its whitespace
 * collapsed to single spaces (as one-line displays and error snippets write it, trimmed too),
 * each of those inside JSON strings, escaped as JSON.stringify, Python (`\u00e9` for non-ASCII)
 * or PHP (`\/` too) escape it, up to `jsonDepth` strings deep, and percent-encoded as URLs carry
 * it (encodeURIComponent, encodeURI, a form or query value with `+` for a space; hex digits in
 * either case). Forms shorter than `minLength` are left out, and so are duplicates: a secret
 * with nothing to escape has one form. Longest first.
 */
export function secretForms(secret: string, minLength: number): string[] {
  const collapsed = secret.replace(/\s+/g, ' ');
  const forms = new Set<string>();
  for (const base of new Set([secret, collapsed, collapsed.trim()])) {
    forms.add(base);
    for (const style of jsonStyles) {
      let form = base;
      for (let depth = 0; depth < jsonDepth; depth += 1) {
        form = style(form);
        forms.add(form);
      }
    }
    for (const encode of [encodeURIComponent, encodeURI, formEncoded]) for (const form of percentEncoded(encode, base)) forms.add(form);
  }
  return [...forms].filter((form) => form.length >= minLength).sort((a, b) => b.length - a.length);
}

import fc from 'fast-check';

/*
 * Generated secrets, the ways a secret gets into what troupe handles, and what counts as the secret
 * appearing in what troupe lets out. The forms checked here are written independently of the
 * redactor's own list (src/task/secretForms.ts), from the encoders that put secrets into outputs.
 */

/** Characters that mean something to regexes, JSON, URLs, shells and CSV-ish lists. */
const special = Array.from('\\^$.*+?()[]{}|/"\'`%&=#<>;:!@~ -_');
const alphanumeric = Array.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
const unicode = ['é', 'ß', 'ø', 'Ω', 'ж', '中', '文', '𝄞', '😀', '👩‍💻', '\u00a0', '\u2028', '\u200b'];
const control = ['\t', '\n', '\r', '\u0000', '\u001b', '\u007f'];

const secretOf = (chars: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.string({ unit: chars, minLength: 8, maxLength: 40 });

/** Whether a secret is one the redactor accepts: `[REDACTED]` must not contain it, or it could never be hidden. */
const hideable = (secret: string): boolean => !'[REDACTED][REDACTED][REDACTED][REDACTED][REDACTED]'.includes(secret);

/** Printable ASCII, as an HTTP header (`Authorization: Bearer <key>`) can carry it. */
export const headerSafeSecretArb: fc.Arbitrary<string> = fc
  .oneof(secretOf(fc.constantFrom(...special, ...alphanumeric)), fc.stringMatching(/^[0-9a-f]{8,32}$/), fc.stringMatching(/^sk-[A-Za-z0-9_-]{20,40}$/))
  // A header value loses its leading and trailing spaces.
  .filter((secret) => secret.trim() === secret && hideable(secret));

/** A bearer token: header-safe, and without spaces, which `Authorization: Bearer <token>` cannot carry. */
export const tokenSecretArb: fc.Arbitrary<string> = headerSafeSecretArb.filter((secret) => !/\s/.test(secret));

/** Anything at all: regex and JSON specials, unicode past the BMP, control characters. */
export const anySecretArb: fc.Arbitrary<string> = fc
  .oneof(
    secretOf(fc.constantFrom(...special, ...alphanumeric, ...unicode, ...control)),
    secretOf(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
    fc.stringMatching(/^[0-9a-f]{8,32}$/),
  )
  .filter(hideable);

/** How a secret is put into a text: whole, inside other text, JSON-escaped, URL-encoded. */
export type Placement = 'whole' | 'embedded' | 'json' | 'url' | 'query';

/** Text around a secret: anything, but never the start or end of a JSON escape or a percent sign that would change how the secret reads. */
const noiseArb = fc.string({ unit: fc.constantFrom(...alphanumeric, ' ', '.', ',', 'é', '中'), maxLength: 12 });

/** A text carrying `secret` the way `placement` says. */
function place(secret: string, placement: Placement, before: string, after: string): string {
  switch (placement) {
    case 'whole':
      return secret;
    case 'embedded':
      return `${before}${secret}${after}`;
    case 'json':
      return `${before}{"key":${JSON.stringify(secret)}}${after}`;
    case 'url':
      return `${before}${encodeURIComponent(secret)}${after}`;
    case 'query':
      return `${before} http://example.test/api/events?access_token=${encodeURIComponent(secret)}&x=1 ${after}`;
    default: {
      const never: never = placement;
      return never;
    }
  }
}

/** One secret placed somewhere: which of the configured secrets, and how. */
export interface Placed {
  readonly which: number;
  readonly placement: Placement;
  readonly before: string;
  readonly after: string;
}

export const placedArb = (secrets: number): fc.Arbitrary<Placed> =>
  fc.record({
    which: fc.nat({ max: secrets - 1 }),
    placement: fc.constantFrom<Placement>('whole', 'embedded', 'json', 'url', 'query'),
    before: noiseArb,
    after: noiseArb,
  });

export const textOf = (secrets: readonly string[], placed: Placed): string => place(secrets[placed.which] ?? '', placed.placement, placed.before, placed.after);

/**
 * Every form in which `secret` would be readable in an output: as is, with its whitespace
 * collapsed (one-line displays, error snippets) when that still leaves eight characters,
 * JSON-escaped once, twice (JSON in a JSON string) or three times, and URL-encoded (a path or
 * query, `+` for spaces).
 */
function appearances(secret: string): string[] {
  const json = (text: string): string => JSON.stringify(text).slice(1, -1);
  const collapsed = secret.replace(/\s+/g, ' ').trim();
  const forms = [secret, json(secret), json(json(secret)), json(json(json(secret))), new URLSearchParams([['', secret]]).toString().slice(1)];
  if (collapsed.length >= 8) forms.push(collapsed);
  try {
    forms.push(encodeURIComponent(secret));
  } catch {
    // A lone surrogate: no URL can carry it.
  }
  return [...new Set(forms)];
}

/** The forms of any of `secrets` that `output` shows, with where: empty when it shows none. */
export function exposures(secrets: readonly string[], outputs: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const form of appearances(secret)) {
      for (const [name, output] of Object.entries(outputs)) {
        const at = output.indexOf(form);
        if (at !== -1)
          found.push(
            `${name} shows ${JSON.stringify(form)} of secret ${JSON.stringify(secret)}: …${output.slice(Math.max(0, at - 60), at + form.length + 60)}…`,
          );
      }
    }
  }
  return found;
}

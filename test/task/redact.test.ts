import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { Redactor, redactedMark, redactingLogger } from '../../src/task/index.js';
import { secretForms } from '../../src/task/secretForms.js';
import { loggedSeed } from '../support/loggedSeed.js';

describe('redacting what troupe logs', () => {
  const redactor = new Redactor(['hunter2-configured']);

  it('redacts errors, nested objects and arrays in log fields, and cuts nesting that goes too deep', () => {
    const cyclic: Record<string, unknown> = { note: 'hunter2-configured' };
    cyclic['self'] = cyclic;
    const out = redactor.unknown({
      error: new Error('HTTP 401: Incorrect API key provided: hunter2-configured'),
      request: { headers: { authorization: 'Bearer abcdefghijk' }, url: '/api/events?access_token=hunter2-configured' },
      list: ['a', 'sk-abcdefghijklmnopqrstuv'],
      count: 3,
      cyclic,
    });
    expect(out).toMatchObject({
      error: { name: 'Error', message: `HTTP 401: Incorrect API key provided: ${redactedMark}` },
      request: { headers: { authorization: redactedMark }, url: `/api/events?access_token=${redactedMark}` },
      list: ['a', redactedMark],
      count: 3,
    });
    expect(JSON.stringify(out)).not.toContain('hunter2-configured');
    expect(JSON.stringify(out)).toContain('[nested too deep]');
  });

  it('redactingLogger redacts the message and every field before the logger sees them', () => {
    const logger = new MemoryLogger();
    const redacting = redactingLogger(logger, redactor);
    redacting.warn({ attempt: 1, error: new Error('echoed hunter2-configured') }, 'model call failed with hunter2-configured; retrying');
    redacting.info({ token: 'anything' }, 'plain');
    redacting.debug({ url: '/api/events?since=3&access_token=s3cr3t-unconfigured&x=1' }, 'request');
    expect(logger.entries).toEqual([
      {
        level: 'warn',
        message: `model call failed with ${redactedMark}; retrying`,
        fields: { attempt: 1, error: { name: 'Error', message: `echoed ${redactedMark}` } },
      },
      { level: 'info', message: 'plain', fields: { token: redactedMark } },
      { level: 'debug', message: 'request', fields: { url: `/api/events?since=3&access_token=${redactedMark}&x=1` } },
    ]);
  });
});

describe('what a configured secret is', () => {
  const secret = 'p@ss/wörd "x" 😀\n';
  const redactor = new Redactor([secret]);
  const json = (text: string): string => JSON.stringify(text).slice(1, -1);
  const ascii = (text: string, upper: boolean): string =>
    json(text).replace(/[\u0080-\uffff]/g, (unit) => {
      const hex = unit.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    });
  const forms: Record<string, string> = {
    'as is': secret,
    'with its whitespace collapsed, as one-line displays write it': secret.replace(/\s+/g, ' ').trim(),
    'JSON-escaped': json(secret),
    'JSON in a JSON string': json(json(secret)),
    'three JSON strings deep': json(json(json(secret))),
    'JSON with non-ASCII as \\uxxxx (Python)': ascii(secret, false),
    'JSON with non-ASCII as \\uXXXX (Java)': ascii(secret, true),
    'JSON with / as \\/ (PHP)': json(secret).replaceAll('/', '\\/'),
    encodeURIComponent: encodeURIComponent(secret),
    'encodeURIComponent, lower-case hex': encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    encodeURI: encodeURI(secret),
    'a query value (+ for spaces)': new URLSearchParams([['q', secret]]).toString().slice(2),
  };

  it.each(Object.entries(forms))('is taken out %s', (_, form) => {
    // The collapsed form with its trailing space is taken out whole, that space with it.
    expect(redactor.text(`before ${form} after`)).toMatch(/^before \[REDACTED\] ?after$/);
    expect(redactor.reveals(`before ${form} after`)).toBe(true);
  });

  it('is taken out again when a mark and the text around it make it up anew', () => {
    const tricky = new Redactor(['D]zzzzzz']);
    // Replacing the first "D]zzzzzz" leaves "[REDACTED]zzzzzz", which ends in the secret again.
    expect(tricky.text('D]zzzzzzzzzzzz')).not.toContain('D]zzzzzz');
  });

  it('is refused when it is part of the mark itself, which could then never hide it', () => {
    for (const markLike of ['REDACTED', 'ED][REDA', '[REDACTED]']) {
      expect(() => new Redactor([markLike])).toThrow(
        expect.objectContaining({ code: 'invalid_input', message: expect.stringContaining('is part of the mark') as unknown }),
      );
    }
  });

  it('is taken out of keys too', () => {
    expect(redactor.value({ [secret]: 1, nested: [{ [`k ${secret}`]: secret }] })).toEqual({
      [redactedMark]: 1,
      nested: [{ [`k ${redactedMark}`]: redactedMark }],
    });
  });

  it('is not seen where it is not', () => {
    expect(redactor.reveals('p@ss/wörd "x"')).toBe(false);
    expect(redactor.text('nothing to see')).toBe('nothing to see');
  });
});

describe('a text streamed in pieces', () => {
  const secretArb = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '"', '\\', 'é', '😀', '/'), minLength: 8, maxLength: 16 }).filter((s) => s.trim() === s);
  const noiseArb = fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', 'x'), maxLength: 10 });

  it('shows no secret even when one is split across pieces, and loses nothing of a text without one', () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.array(fc.tuple(noiseArb, fc.constantFrom('raw', 'json', 'none')), { maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (secret, parts, cuts) => {
          const redactor = new Redactor([secret]);
          const whole = parts
            .map(([noise, form]) => `${noise}${form === 'raw' ? secret : form === 'json' ? JSON.stringify(secret).slice(1, -1) : ''}`)
            .join('');
          const at = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...at].map((start, i) => whole.slice(start, at[i] ?? whole.length));
          const stream = redactor.stream();
          const shown = pieces.map((piece) => stream.push(piece)).join('') + stream.flush();
          expect(redactor.reveals(shown)).toBe(false);
          if (!redactor.reveals(whole)) expect(shown).toBe(whole);
        },
      ),
      loggedSeed('streamed redaction'),
    );
  });
});

describe('redacting JSON as written', () => {
  it("ends a URL's credential at a backslash, which in JSON escapes the quote after it (found by the property: the event was invalid JSON)", () => {
    const redactor = new Redactor([]);
    const written = JSON.stringify({ message: 'the page starts "a http://x.test/api/events?access_token=%20%E0%A0%80"' });
    const out = redactor.text(written);
    expect(JSON.parse(out)).toEqual({ message: `the page starts "a http://x.test/api/events?access_token=${redactedMark}"` });
  });

  it('keeps JSON valid where only escaping made a secret of unrelated text, and redacts the rest as text does', () => {
    const redactor = new Redactor(['abcdefg\\']);
    // `abcdefg"` is not the secret; written as JSON it is `abcdefg\"`, which starts with it.
    const written = JSON.stringify({ said: 'abcdefg"' });
    expect(redactor.text(written)).toBe(`{"said":"${redactedMark}""}`);
    expect(redactor.json(written)).toBe(written);
    expect(redactor.json(JSON.stringify({ said: 'abcdefg\\' }))).toBe(`{"said":"${redactedMark}"}`);
    expect(redactor.json('plain abcdefg\\ text')).toBe(`plain ${redactedMark} text`);
  });
});

describe('telling from JSON that there is nothing to redact', () => {
  const unit = fc.constantFrom('a', 'b', ' ', '"', '\\', 'é', '😀', '/', '\n');
  const secretArb = fc.string({ unit, minLength: 8, maxLength: 12 }).filter((s) => s.trim() === s);

  it('never vouches for data whose redaction would change it (secrets in every form, shapes, secret-looking keys)', () => {
    let vouched = 0;
    fc.assert(
      fc.property(secretArb, (secret) => {
        const redactor = new Redactor([secret]);
        // Strings holding the secret in one of its forms (as is, escaped as JSON strings up to three deep, percent-encoded), a shape, or nothing.
        const forms = secretForms(secret, 6);
        const text = fc.oneof(
          fc.string({ unit, maxLength: 6 }),
          fc
            .tuple(
              fc.string({ unit, maxLength: 4 }),
              fc.constantFrom(...forms, 'sk-abcdefghijklmnopqrstu', 'Bearer abcdefghij', 'x?token=abc', 'ghp_abcdefghijklmnopqrstuv'),
            )
            .map(([a, b]) => a + b),
        );
        const key = fc.oneof(text, fc.constantFrom('apiKey', 'access_token', 'role', 'content'));
        const data = fc.letrec((tie) => ({
          value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), tie('array'), tie('object')),
          array: fc.array(tie('value'), { maxLength: 3 }),
          object: fc.dictionary(key, tie('value'), { maxKeys: 3 }),
        })).value;
        fc.assert(
          fc.property(data, (value) => {
            if (!redactor.leaves(JSON.stringify(value))) return;
            vouched++;
            expect(redactor.value(value as never)).toEqual(value);
            expect(redactor.unknown(value, 64)).toEqual(value);
          }),
          { numRuns: 20 },
        );
      }),
      loggedSeed('leaves'),
    );
    expect(vouched).toBeGreaterThan(100);
  });

  it('vouches for the common Task with nothing to hide, and not for one with a secret in a result', () => {
    const redactor = new Redactor(['hunter2-configured']);
    expect(redactor.leaves(JSON.stringify({ role: 'tool', content: '{"n":3}' }))).toBe(true);
    expect(redactor.leaves(JSON.stringify({ result: 'the key is hunter2-configured' }))).toBe(false);
    expect(redactor.leaves(JSON.stringify({ result: JSON.stringify({ said: 'hunter2-configured' }) }))).toBe(false);
  });
});

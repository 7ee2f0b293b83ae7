import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { Redactor, redactedMark, redactingLogger } from '../../src/task/index.js';
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

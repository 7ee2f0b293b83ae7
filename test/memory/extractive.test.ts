import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { extractiveFacts, extractiveSummary } from '../../src/memory/index.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { memoryTask } from '../support/memoryFixture.js';

const request = memoryTask({
  from: 'user',
  to: 'root',
  text: 'Plan a three-day trip to Lisbon in May for two people. We like food, old trams and the sea. Keep the budget under 900 euros.',
});
const answer = memoryTask({
  from: 'root',
  to: 'user',
  status: 'completed',
  text: 'Day one in Lisbon: Alfama on tram 28 and grilled sardines by the sea. Day two: Belém, the tower and the custard tarts. Day three: a train to Cascais for the sea. The budget comes to 850 euros for two.',
});

describe('extractiveSummary', () => {
  it('keeps what the Tasks keep returning to, under each sender, within the limit', () => {
    const summary = extractiveSummary([request, answer], 200);
    expect(summary.length).toBeLessThanOrEqual(200);
    expect(summary).toMatch(/^user: Plan a three-day trip to Lisbon/);
    expect(summary).toContain(' | root: ');
    expect(summary).toMatch(/Lisbon/);
    expect(extractiveSummary([request, answer], 200)).toBe(summary);
  });

  it('says a failure and its error', () => {
    const failed = memoryTask({ from: 'worker', to: 'root', status: 'failed', text: 'ignored' });
    const withError = { ...failed, error: { code: 'tool_timeout' as const, message: 'The search tool did not answer within 60 s.' } };
    expect(extractiveSummary([withError])).toBe('worker (failed): The search tool did not answer within 60 s.');
  });

  it('cuts one sentence that alone is too long at a word, marking the cut', () => {
    const long = memoryTask({ from: 'user', text: `Summarise ${'a very long and winding sentence '.repeat(20)}please.` });
    const summary = extractiveSummary([long], 60);
    expect(summary.length).toBeLessThanOrEqual(60);
    expect(summary).toMatch(/^user: Summarise a very long .*…$/);
  });

  it('refuses to summarise nothing', () => {
    expect(() => extractiveSummary([])).toThrow(ValidationError);
  });

  it('is never longer than asked, and never empty, for any texts (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 400 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 20, max: 200 }), (texts, max) => {
        const summary = extractiveSummary(
          texts.map((text) => memoryTask({ text })),
          max,
        );
        expect(summary.length).toBeGreaterThan(0);
        expect(summary.length).toBeLessThanOrEqual(max);
      }),
      loggedSeed('extractive summary length'),
    );
  });
});

describe('extractiveFacts', () => {
  it('gives the summaries’ statements under their speakers, without repeats, best ones kept', () => {
    const summaries = [
      'user: Plan a trip to Lisbon in May. | root: Day one in Lisbon: Alfama on tram 28.',
      'user: The budget is 900 euros. | root: Day one in Lisbon: Alfama on tram 28.',
    ];
    const facts = extractiveFacts(summaries, { maxFacts: 3 });
    expect(facts).toHaveLength(3);
    expect(new Set(facts).size).toBe(3);
    expect(facts).toContain('root: Day one in Lisbon: Alfama on tram 28.');
    expect(facts.every((fact) => /^(user|root): /.test(fact))).toBe(true);
    expect(extractiveFacts(summaries, { maxFacts: 3 })).toEqual(facts);
  });

  it('gives at least one fact for any text, each within the limit (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 20, max: 500 }),
        (texts, maxChars) => {
          const facts = extractiveFacts(texts, { maxChars });
          if (texts.some((text) => text.trim() !== '')) expect(facts.length).toBeGreaterThan(0);
          expect(facts.length).toBeLessThanOrEqual(8);
          for (const fact of facts) expect(fact.length).toBeLessThanOrEqual(maxChars);
        },
      ),
      loggedSeed('extractive facts'),
    );
  });
});

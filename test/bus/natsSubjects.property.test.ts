import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matches, parsePattern } from '../../src/bus/index.js';
import { subjectOf, subscriptionSubjectOf } from '../../src/bus/transports/natsSubjects.js';
import type { Interest } from '../../src/bus/transport.js';
import { loggedSeed } from '../support/loggedSeed.js';

/**
 * Whether NATS delivers a message on `subject` to a subscription on `filter`, by NATS's rules:
 * tokens are split at dots, `*` matches exactly one token, `>` (last only) one or more.
 */
function natsMatches(filter: string, subject: string): boolean {
  const wanted = filter.split('.');
  const tokens = subject.split('.');
  for (const [i, token] of wanted.entries()) {
    if (token === '>') return tokens.length > i;
    if (i >= tokens.length || (token !== '*' && token !== tokens[i])) return false;
  }
  return wanted.length === tokens.length;
}

const word = fc.constantFrom('node', 'agent', 'action', 'a', 'b', 'execute');
const action = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join('.'));
const target = fc.constantFrom('root', 'agent', 'action', 'poet-1', 'user');
const society = fc.constantFrom('default', 'demo', 'agent');
const interest: fc.Arbitrary<Interest> = fc.oneof(
  target.map((t) => ({ target: t })),
  fc
    .oneof(
      fc.constant('*'),
      action,
      action.map((prefix) => `${prefix}.*`),
    )
    .map((pattern) => ({ pattern })),
);

describe('NATS subjects (property)', () => {
  it('a subscription for an interest receives exactly the Tasks the in-process bus gives that interest, of its own society only', () => {
    fc.assert(
      fc.property(interest, target, action, society, society, (wanted, to, act, mine, theirs) => {
        const delivered = natsMatches(subscriptionSubjectOf(wanted, mine), subjectOf({ to, action: act }, theirs));
        const expected = 'target' in wanted ? to === wanted.target : matches(parsePattern(wanted.pattern), act);
        expect(delivered).toBe(expected && mine === theirs);
      }),
      loggedSeed('NATS subjects', 500),
    );
  });
});

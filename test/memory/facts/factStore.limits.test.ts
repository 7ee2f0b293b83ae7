import { describe, expect, it } from 'vitest';
import { TroupeError, ValidationError } from '../../../src/errors.js';
import type { NewFact } from '../../../src/memory/facts/factStore.js';
import { fact, factHarness } from '../../support/factStoreFixture.js';

// Every bound of L4 has a default, an option, and a clear refusal naming what was wrong.

const { place, openStore } = factHarness();

async function refusal(promise: Promise<unknown>): Promise<TroupeError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TroupeError);
  return error as TroupeError;
}

describe('L4 limits and bad input', () => {
  it('at compressAbove, refuses a new fact with memory_full when maxWaitingAdds adds wait for the compression making room, but still merges a near-duplicate', async () => {
    const { store, logger } = await openStore(await place(), { limits: { maxFacts: 2, compressAbove: 2, keepTopN: 1, maxWaitingAdds: 0 } });
    await store.add(fact('The user prefers dark mode in the editor.', { importance: 0.9 }));
    await store.add(fact('Alice lives in Lisbon.'));
    // A near-duplicate needs no room: merged at once, with no compression.
    expect((await store.add(fact('The user prefers dark mode in the editor!'))).merged).toBe(true);
    const full = await refusal(store.add(fact('Carol manages the billing team.')));
    expect(full.code).toBe('memory_full');
    expect(full.message).toBe('agent root holds 2 facts while a compression runs, and 0 adds already wait for it, its limit (maxWaitingAdds); try again later');
    // The refused add started the compression all the same: the next add finds room.
    await store.flush();
    expect(logger.entries.filter((entry) => entry.message === 'L4 compressed to make room for adds')).toHaveLength(1);
    expect((await store.add(fact('Carol manages the billing team.'))).merged).toBe(false);
    expect(store.list().map((kept) => kept.text)).toEqual(['The user prefers dark mode in the editor.', 'Carol manages the billing team.']);
  });

  it('refuses a fact that is blank, invisible, reordered by bidi controls, too long, badly scoped or carries too much metadata, naming the field and the limit', async () => {
    const { store } = await openStore(null, { limits: { maxFactChars: 20, maxMetadataBytes: 32 } });
    const cases: [unknown, RegExp][] = [
      [{ ...fact(' '), text: '   ' }, /^fact\.text: must not be blank$/],
      // Zero-width space, word joiner, Hangul filler, variation selector: nothing a reader would see.
      [fact(' \u200b '), /^fact\.text: has no visible character/],
      [fact('\u2060\u3164\ufe0f'), /^fact\.text: has no visible character/],
      // A right-to-left override and an isolate: shown in another order than stored.
      [fact('pay \u202eevil'), /^fact\.text: contains a bidirectional control character/],
      [fact('a \u2066b\u2069 c'), /^fact\.text: contains a bidirectional control character/],
      [fact('x'.repeat(21)), /^fact\.text: is 21 characters, more than maxFactChars \(20\)/],
      [{ ...fact('ok'), scope: 'session', sessionId: null }, /^fact\.sessionId: a 'session' fact needs its sessionId/],
      [{ ...fact('ok'), scope: 'agent', sessionId: 's1' }, /^fact\.sessionId: a 'session' fact needs its sessionId, an 'agent' fact has sessionId null/],
      [{ ...fact('ok'), scope: 'team' }, /^fact\.scope:/],
      [{ ...fact('ok'), importance: 1.5 }, /^fact\.importance:/],
      [{ ...fact('ok'), sessionId: 'bad id!' }, /^fact\.sessionId:/],
      [{ ...fact('ok'), extra: 1 }, /^fact:/],
      [fact('ok', { metadata: { note: 'y'.repeat(40) } }), /^fact\.metadata: is \d+ bytes as JSON, more than maxMetadataBytes \(32\)/],
    ];
    for (const [input, message] of cases) {
      const error = await refusal(store.add(input as NewFact));
      expect(error, JSON.stringify(input)).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(message);
    }
    expect(store.size).toBe(0);
  });

  it('refuses a search that is blank, too long, asks for too many or no results, or names a bad session', async () => {
    const { store } = await openStore(null, { limits: { maxQueryChars: 10, maxSearchResults: 5 } });
    await store.add(fact('a fact'));
    const cases: [Promise<unknown>, RegExp][] = [
      [store.search(' ', 1, { sessionId: 's1' }), /^text: must not be blank$/],
      [store.search('x'.repeat(11), 1, { sessionId: 's1' }), /^text: is 11 characters, more than maxQueryChars \(10\)$/],
      [store.search('fact', 6, { sessionId: 's1' }), /^k: is 6, more than maxSearchResults \(5\)$/],
      [store.search('fact', 0, { sessionId: 's1' }), /^k:/],
      [store.search('fact', 1.5, { sessionId: 's1' }), /^k:/],
      [store.search('fact', 1, { sessionId: '' }), /^filter\.sessionId:/],
      [store.search('fact', 1, {} as { sessionId: null }), /^filter\.sessionId:/],
    ];
    for (const [search, message] of cases) {
      const error = await refusal(search);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(message);
    }
  });

  it('refuses bad options on open, naming each', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ agentId: 'no spaces' }, /^agentId:/],
      [{ limits: { mergeThreshold: 1.2 } }, /^limits\.mergeThreshold:/],
      [{ limits: { maxFacts: 0 } }, /^limits\.maxFacts:/],
      [{ limits: { compressAbove: 10, keepTopN: 11 } }, /^limits\.keepTopN: must be at most compressAbove$/],
      [{ limits: { maxFacts: 5 } }, /^limits\.compressAbove: must be at most maxFacts$/],
      [{ limits: { efSearch: -1 } }, /^limits\.efSearch:/],
      [{ limits: { maxWaitingAdds: -1 } }, /^limits\.maxWaitingAdds:/],
      [{ limits: { maxUnindexed: 1.5 } }, /^limits\.maxUnindexed:/],
      [{ limits: { unknownLimit: 1 } }, /^limits:/],
    ];
    for (const [options, message] of cases) {
      const error = await refusal(openStore(null, options));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(message);
    }
  });

  it('refuses calls after close, and closes once', async () => {
    const { store } = await openStore(await place());
    await store.add(fact('a fact'));
    const closing = store.close();
    expect(store.close()).toBe(closing);
    await closing;
    expect((await refusal(store.add(fact('another')))).message).toBe('the L4 fact store of agent root is closed');
    await expect(store.search('fact', 1, { sessionId: null })).rejects.toThrow(/closed/);
    await expect(store.compress()).rejects.toThrow(/closed/);
  });

  it('refuses a search that was embedding its query when the store closed, and writes no retrieval after close', async () => {
    const at = await place();
    const { store } = await openStore(at);
    await store.add(fact('a fact'));
    // Its refusal is caught at once: it comes while the test waits for close.
    const searching = refusal(store.search('a fact', 1, { sessionId: 's1' }));
    await store.close();
    expect((await searching).message).toBe('the L4 fact store of agent root is closed');
    const { store: reopened } = await openStore(at);
    expect(reopened.list()[0]?.retrievals).toBe(0);
  });
});

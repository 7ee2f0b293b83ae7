import { describe, expect, it } from 'vitest';
import { TroupeError, ValidationError } from '../../src/errors.js';
import { type ImportItem, type Runtime, createRuntime } from '../../src/index.js';
import { turnParts } from '../../src/runtime/memory/programMemory.js';
import { ScriptedModel, sequentialIds } from '../../src/testing.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

// Memory a program writes (issue 33, point 1): rt.remember, rt.forget and rt.importMemory put
// facts and conversation turns into a live agent's L4 with no model turn; what they carry comes
// back with every search hit, a bad item refuses the whole import naming it, and what was stored
// survives a restart.

const tempDir = tempDirsAfterEach('troupe-program-memory-');

/**
 * A runtime; one that holds more than the default 4,000 facts searches exactly (`exactSearch`): the
 * 10,000-item import tests what an import keeps, and hnswlib's inserts of its vectors (in the
 * background, waited for at shutdown) take tens of seconds on a loaded machine.
 * test/memory/facts/factStore.addMany.test.ts imports through hnswlib.
 */
async function runtime(dataDir: string | null = null, compressAbove = 4000): Promise<Runtime> {
  const facts = { compressAbove, keepTopN: Math.min(3200, compressAbove), exactSearch: compressAbove > 4000 };
  return createRuntime({ model: new ScriptedModel([]), ids: sequentialIds(), dataDir, memory: { facts } });
}

async function refusal(promise: Promise<unknown>): Promise<TroupeError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof TroupeError)) throw new Error(`expected a TroupeError, got ${String(error)}`);
  return error;
}

describe('rt.remember and rt.forget', () => {
  it('stores a fact with its metadata, finds it with that metadata, merges a near-duplicate, and forgets it', async () => {
    const rt = await runtime();
    const fact = await rt.remember('root', { text: 'The user prefers answers in French.', metadata: { source: 'crm-42' } });
    expect(fact).toMatchObject({ scope: 'agent', sessionId: null, importance: 0.7, merged: false, metadata: { source: 'crm-42' } });

    const found = await rt.memory('root', { search: 'which language does the user want answers in?' });
    expect(found.entries[0]).toMatchObject({ id: fact.id, metadata: { source: 'crm-42' } });

    const again = await rt.remember('root', { text: 'The user prefers answers in French.', importance: 0.9 });
    expect(again).toMatchObject({ id: fact.id, merged: true, importance: 0.9 });

    const inSession = await rt.remember('root', { text: 'This conversation is about a trip to Porto.', sessionId: 's-1' });
    expect(inSession).toMatchObject({ scope: 'session', sessionId: 's-1' });

    await rt.forget('root', fact.id);
    expect((await rt.memory('root', { tier: 'l4' })).entries.map((entry) => (entry.tier === 'l4' ? entry.id : null))).toEqual([inSession.id]);
    const unknown = await refusal(rt.forget('root', fact.id));
    expect(unknown.code).toBe('unknown_fact');
    expect(unknown.message).toContain(fact.id);
    await rt.shutdown();
  });

  it('says which fact holds an id that was merged away', async () => {
    const rt = await runtime();
    const kept = await rt.remember('root', { text: 'The office is in Lisbon.' });
    const [first, second] = (await rt.importMemory('root', [{ text: 'The office is in Lisbon.' }, { text: 'The office is in Lisbon.' }])).facts;
    expect([first?.merged, second?.merged]).toEqual([true, true]);
    // The merged-away fact got an id of its own, recorded in the holder's mergedFrom.
    const error = await refusal(rt.forget('root', 'f1'));
    expect(error.code).toBe('unknown_fact');
    expect(error.message).toContain(`merged into ${kept.id}`);
    await rt.shutdown();
  });

  it('refuses a fact past maxFactChars, a blank one and a bad field, naming the field, and an agent that is not live', async () => {
    const rt = await runtime();
    const long = await refusal(rt.remember('root', { text: 'x'.repeat(501) }));
    expect(long).toBeInstanceOf(ValidationError);
    expect(long.message).toMatch(/^text: is 501 characters, more than maxFactChars \(500\)/);
    expect((await refusal(rt.remember('root', { text: '   ' }))).message).toMatch(/^text:/);
    expect((await refusal(rt.remember('root', { text: 'ok', importance: 2 }))).message).toMatch(/^importance:/);
    expect((await refusal(rt.remember('root', { text: 'ok', scope: 'session' }))).message).toMatch(/sessionId/);
    expect((await refusal(rt.remember('nobody', { text: 'ok' }))).code).toBe('unknown_agent');
    await rt.createRole({ name: 'worker', prompt: 'You work.' });
    const worker = await rt.spawn({ role: 'worker' });
    await rt.terminate(worker, { by: 'user' });
    expect((await refusal(rt.remember(worker, { text: 'ok' }))).code).toBe('agent_terminated');
    await rt.shutdown();
  });
});

describe('rt.importMemory', () => {
  it('imports 10,000 items in order, refuses all of an import with a bad item in the middle, and keeps them across a restart', async () => {
    const dataDir = await tempDir();
    let rt = await runtime(dataDir, 20_000);
    // Turns (never merged, so no near-duplicate search per item): a chat history, the import's common case.
    const items: ImportItem[] = Array.from({ length: 10_000 }, (_, i) => ({
      kind: 'turn',
      speaker: i % 2 === 0 ? 'Ana' : 'Ben',
      text: `Record ${i}: shipment ${i * 7919} left warehouse ${i % 37} on day ${i % 365}.`,
      metadata: { source: `ledger-${i}` },
    }));
    const bad = [...items];
    bad[5_000] = { text: 'fine', importance: 7 };
    const error = await refusal(rt.importMemory('root', bad));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('items[5000].importance');
    expect((await rt.memory('root')).counts.l4).toBe(0);

    const report = await rt.importMemory('root', items);
    expect([report.stored, report.merged]).toEqual([10_000, 0]);
    expect(report.facts.map((fact) => fact.item)).toEqual(items.map((_, i) => i));
    await rt.shutdown();

    rt = await runtime(dataDir, 20_000);
    const hit = (await rt.memory('root', { search: 'shipment 39595 left warehouse 5' })).entries[0];
    expect(hit).toMatchObject({ text: 'Ben: Record 5: shipment 39595 left warehouse 5 on day 5.', metadata: { source: 'ledger-5', speaker: 'Ben' } });
    expect((await rt.memory('root')).counts.l4).toBe(10_000);
    await rt.shutdown();
  });

  it('stores turns as said: the speaker first, the time and conversation kept, never merged, a long one in parts', async () => {
    const rt = await runtime();
    const at = '2023-05-08T13:56:00Z';
    const long = `${'We walked along the river for hours. '.repeat(20)}Then it rained.`;
    const report = await rt.importMemory('root', [
      { kind: 'turn', speaker: 'Ana', text: 'I adopted a cat named Miso.', at, conversation: 'chat-1' },
      { kind: 'turn', speaker: 'Ana', text: 'I adopted a cat named Miso.', at, conversation: 'chat-1' },
      { kind: 'turn', speaker: 'Ben', text: long, conversation: 'chat-1', metadata: { source: 'export.json' } },
    ]);
    expect(report.merged).toBe(0);
    const [first, second, ...parts] = report.facts;
    expect(first).toMatchObject({
      text: 'Ana: I adopted a cat named Miso.',
      metadata: { kind: 'turn', speaker: 'Ana', at: Date.parse(at), conversation: 'chat-1' },
    });
    expect(second?.id).not.toBe(first?.id);
    expect(parts.length).toBeGreaterThan(1);
    for (const [i, part] of parts.entries()) {
      expect(part.item).toBe(2);
      expect(part.text.startsWith('Ben: ')).toBe(true);
      expect(part.text.length).toBeLessThanOrEqual(500);
      expect(part.metadata).toMatchObject({ source: 'export.json', part: i + 1, parts: parts.length });
    }
    expect(parts.map((part) => part.text.slice('Ben: '.length)).join(' ')).toBe(long.trim());
    await rt.shutdown();
  });

  it('names a bad turn by its item and field, refuses more than maxImportItems, and a non-array', async () => {
    const rt = await createRuntime({ model: new ScriptedModel([]), maxImportItems: 3 });
    const turn = await refusal(rt.importMemory('root', [{ text: 'ok' }, { kind: 'turn', speaker: '', text: 'hi' }]));
    expect(turn.message).toContain('items[1].speaker');
    const blank = await refusal(rt.importMemory('root', [{ text: 'ok' }, { kind: 'turn', speaker: 'Ana', text: '  ' }]));
    expect(blank.message).toContain('items[1].text');
    const many = await refusal(rt.importMemory('root', [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }]));
    expect(many.message).toContain('maxImportItems (3)');
    expect((await refusal(rt.importMemory('root', 'facts' as unknown as ImportItem[]))).message).toContain('items');
    expect((await rt.memory('root')).counts.l4).toBe(0);
    await rt.shutdown();
  });
});

describe('turnParts', () => {
  it('cuts at a space or sentence end within the limit, and a word longer than the limit where it must', () => {
    expect(turnParts('one two three', 7)).toEqual(['one two', 'three']);
    expect(turnParts('The cat sat. It was warm today', 20)).toEqual(['The cat sat.', 'It was warm today']);
    expect(turnParts('Done. Next one here', 10)).toEqual(['Done. Next', 'one here']);
    expect(turnParts('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(turnParts('   ', 4)).toEqual([]);
  });
});

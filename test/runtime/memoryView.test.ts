import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, type OpenAICompatibleServer, startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import type { ErrorCode } from '../../src/errors.js';
import { type RememberingSociety, rememberedFacts, rememberingSociety } from '../support/rememberingSociety.js';

// `rt.memory(agentId, query)`: what an agent remembers, read from its open memory or, once it is
// terminated, from the data dir; a model drives the society through the real `openai` package.

let server: OpenAICompatibleServer;
let base: string;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
  base = await mkdtemp(join(tmpdir(), 'troupe-memory-view-'));
});
afterAll(async () => {
  await server.close();
  await rm(base, { recursive: true, force: true });
});

const later = cleanupAfterEach();

async function expectRefusal(promise: Promise<unknown>, code: ErrorCode, message: RegExp): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code, message: expect.stringMatching(message) as string });
}
let dirs = 0;

async function society(options: { onDisk: boolean; secrets?: string[] }): Promise<RememberingSociety & { dataDir: string | null }> {
  const dataDir = options.onDisk ? join(base, `run-${(dirs += 1)}`) : null;
  const made = await rememberingSociety(server, { dataDir, ...(options.secrets === undefined ? {} : { secrets: options.secrets }) });
  later(() => made.rt.shutdown({ drainTimeoutMs: 0 }).then(() => undefined));
  return { ...made, dataDir };
}

describe('rt.memory: what an agent remembers', () => {
  it('counts every tier, pages one, and keeps to a session when asked', async () => {
    const { rt, rain, snow } = await society({ onDisk: false });
    const counts = await rt.memory('root');
    expect(counts).toMatchObject({ agentId: 'root', source: 'live', sessionId: null, tier: null, search: null, total: 0, entries: [] });
    // Its own spawn notice, then each exchange: the user's Task and root's answer; the facts: the agent-wide one and the rain session's.
    expect(counts.counts).toEqual({ l1: 5, l2: 0, l3: 0, l4: 2 });

    const l1 = await rt.memory('root', { tier: 'l1' });
    expect(l1.entries.map((entry) => (entry.tier === 'l1' ? [entry.id, entry.from, entry.to, entry.status, entry.sessionId, entry.text] : entry))).toEqual([
      [expect.any(String), 'root', 'runtime', 'completed', expect.any(String), '{"agentId":"root","roleId":"role-t1","role":"root"}'],
      [rain, 'user', 'root', 'submitted', rain, 'write a haiku about rain'],
      [rain, 'root', 'user', 'completed', rain, 'Rain on the roof'],
      [snow, 'user', 'root', 'submitted', snow, 'now one about snow'],
      [snow, 'root', 'user', 'completed', snow, 'Snow on the hill'],
    ]);
    expect(l1.entries[1]).toMatchObject({ tier: 'l1', action: 'execute', importance: 0.7, retrievals: 0 });

    const page = await rt.memory('root', { tier: 'l1', offset: 2, limit: 2 });
    expect([page.total, page.offset, page.entries.map((entry) => entry.text)]).toEqual([5, 2, ['Rain on the roof', 'now one about snow']]);

    const snowOnly = await rt.memory('root', { tier: 'l4', sessionId: snow });
    expect(snowOnly.counts).toEqual({ l1: 2, l2: 0, l3: 0, l4: 1 });
    expect(snowOnly.entries).toEqual([
      expect.objectContaining({ tier: 'l4', id: 'f0', scope: 'agent', sessionId: null, importance: 0.9, text: rememberedFacts.likes, similarity: null }),
    ]);
    const every = await rt.memory('root', { tier: 'l4' });
    expect(every.entries.map((entry) => [entry.tier === 'l4' ? entry.scope : '', entry.sessionId, entry.text])).toEqual([
      ['agent', null, rememberedFacts.likes],
      ['session', rain, rememberedFacts.rainSession],
    ]);
  });

  it("searches L4 (a session's facts and the agent's) with similarities, and looking counts no retrieval", async () => {
    const { rt, snow } = await society({ onDisk: false });
    // The snow session's Task is not about the agent-wide fact (a rain haiku): its turn left it out
    // of the context (memory.minRelevance), so no use of it was counted.
    const before = (await rt.memory('root', { tier: 'l4' })).entries.map((entry) => entry.retrievals);
    expect(before).toEqual([0, 0]);
    const found = await rt.memory('root', { search: 'what haiku does the user like?', k: 5 });
    expect(found).toMatchObject({ tier: 'l4', search: { text: 'what haiku does the user like?', k: 5 }, offset: 0 });
    expect(found.entries.map((entry) => entry.text)).toEqual([rememberedFacts.likes, rememberedFacts.rainSession]);
    const [best, next] = found.entries.map((entry) => (entry.tier === 'l4' ? (entry.similarity ?? -1) : -1));
    expect(best).toBeGreaterThan(next ?? 1);
    expect(best).toBeLessThanOrEqual(1);
    expect((await rt.memory('root', { search: 'rain haiku', sessionId: snow })).entries.map((entry) => entry.text)).toEqual([rememberedFacts.likes]);
    // Searched twice since, retrieved no more: a view is not a use.
    expect((await rt.memory('root', { tier: 'l4' })).entries.map((entry) => entry.retrievals)).toEqual(before);
  });

  it("a terminated agent's memory is read from the data dir, and still after a restart; memory only, it went with the agent", async () => {
    const { rt, keeper, dataDir } = await society({ onDisk: true });
    const stored = await rt.memory(keeper, { tier: 'l1' });
    expect(stored).toMatchObject({ agentId: keeper, source: 'store', counts: { l1: 3, l2: 0, l3: 0, l4: 1 } });
    expect(stored.entries.map((entry) => entry.text).slice(1)).toEqual(['keep the door code: 1234', 'kept']);
    const searched = await rt.memory(keeper, { search: 'door code' });
    expect(searched.entries).toEqual([expect.objectContaining({ id: 'f0', text: rememberedFacts.doorCode, similarity: expect.any(Number) as number })]);
    await rt.shutdown();

    const again = await createRuntime({ dataDir, logger: new MemoryLogger() });
    later(() => again.shutdown({ drainTimeoutMs: 0 }).then(() => undefined));
    expect((await again.memory(keeper, { tier: 'l4' })).entries.map((entry) => entry.text)).toEqual([rememberedFacts.doorCode]);
    await again.restored();
    const root = await again.memory('root');
    expect(root).toMatchObject({ source: 'live', counts: { l1: 5, l4: 2 } });

    const inMemory = await society({ onDisk: false });
    await expectRefusal(inMemory.rt.memory(inMemory.keeper), 'agent_terminated', /kept in memory only/);
  });

  it('refuses an unknown agent, a bad query naming its field, and any read once shut down', async () => {
    const { rt, rain } = await society({ onDisk: false });
    await expectRefusal(rt.memory('nobody'), 'unknown_agent', /no agent "nobody"/);
    await expectRefusal(rt.memory('no body'), 'invalid_input', /^agentId: /);
    const refusals: [Parameters<Runtime['memory']>[1], RegExp][] = [
      [{ tier: 'l5' as 'l1' }, /^tier: /],
      [{ tier: 'l1', limit: 501 }, /^limit: Too big: expected number to be <=500/],
      [{ tier: 'l1', limit: 0 }, /^limit: /],
      [{ tier: 'l1', offset: -1 }, /^offset: /],
      [{ sessionId: 'not a session' }, /^sessionId: /],
      [{ k: 3 }, /^k: is how many facts a search returns: give search too/],
      [{ search: 'rain', tier: 'l1' }, /^tier: is l1, but search looks through L4 facts/],
      [{ search: 'rain', offset: 2 }, /^offset: pages a tier/],
      [{ search: '  ' }, /^search: must not be blank/],
      [{ search: 'rain', k: 101 }, /^k: Too big/],
      [{ tier: 'l1', page: 2 } as Parameters<Runtime['memory']>[1], /Unrecognized key: "page"/],
    ];
    for (const [query, message] of refusals) await expectRefusal(rt.memory('root', query), 'invalid_input', message);
    expect((await rt.memory('root', { tier: 'l1', sessionId: rain })).total).toBe(2);
    const strict = await createRuntime({ memory: { facts: { maxQueryChars: 10 } } });
    later(() => strict.shutdown().then(() => undefined));
    // The fact store's own limit, named as the query's field.
    await expectRefusal(strict.memory('root', { search: 'x'.repeat(11) }), 'invalid_input', /^search: is 11 characters, more than maxQueryChars \(10\)$/);
    await rt.shutdown();
    await expectRefusal(rt.memory('root'), 'intake_closed', /shut down/);
  });

  it('redacts every text it shows (the secrets configured, and those of a redactor given), and cuts a long one after redacting', async () => {
    const secret = 'hunter2-secret-value';
    const { rt } = await society({ onDisk: false, secrets: [secret] });
    server.script({ text: `${'x'.repeat(2100)} ${secret} sk-abcdefghijklmnopqrstuvwxyz0123` });
    const taskId = await rt.submit(`remember ${secret} and the token other-secret-42`);
    await rt.waitForAnswer(taskId, { timeoutMs: 30_000 });
    const view = await rt.memory('root', { tier: 'l1', sessionId: taskId }, { redactor: rt.redactor.with(['other-secret-42']) });
    const [asked, answer] = view.entries.map((entry) => entry.text);
    expect(asked).toBe('remember [REDACTED] and the token [REDACTED]');
    expect(answer).toHaveLength(2000);
    expect(answer?.endsWith('…')).toBe(true);
    expect(JSON.stringify(await rt.memory('root', { tier: 'l1' }))).not.toContain(secret);
  });
});

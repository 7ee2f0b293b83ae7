import { describe, expect, it, vi } from 'vitest';
import { OpenAIModel } from '../../../src/llm/index.js';
import type { AgentMemory } from '../../../src/memory/index.js';
import type { CompactorConfigInput } from '../../../src/runtime/memory/compactor/compactor.js';
import { type OpenAICompatibleServer, type ServerStep, startOpenAICompatibleServer } from '../../../src/testing.js';
import { cleanupAfterEach } from '../../support/cleanupAfterEach.js';
import { type CompactorWorld, compactorHarness, untilIdle } from '../../support/compactorFixture.js';
import { memoryTask } from '../../support/memoryFixture.js';
import { loggedAboveDebug } from '../../support/hnswlibTests.js';

// Summaries (L3) and facts (L4) written by a model: the real `openai` package over loopback to the
// local OpenAI-compatible server, with the extractive helpers taking over whenever the model's
// answer cannot be used, and a log line saying why.

const world = compactorHarness();
const later = cleanupAfterEach();

const texts = [
  'Please plan a three-day trip to Lisbon for two in May.',
  'Day 1 Alfama and the castle, day 2 Belém, day 3 Sintra; hotel in Chiado, 180 euros a night.',
  'Book the Sintra train for 9:10 on the third day.',
];

/** A world with one agent `a1` whose memory holds `texts` (one per session `s0`, `s1`, …), a model on the local server, and the compactor. */
async function setUp(init: { sessions?: number; limits?: { l3Capacity?: number }; options?: CompactorConfigInput } = {}): Promise<{
  server: OpenAICompatibleServer;
  memory: AgentMemory;
  compact: () => Promise<void>;
  world: CompactorWorld;
}> {
  const server = await startOpenAICompatibleServer();
  later(() => server.close());
  const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'summariser' });
  const current = await world();
  const memory = await current.open('a1', { limits: { l1Capacity: 1, ...init.limits } });
  for (const [i, text] of texts.entries()) {
    await memory.observe(
      memoryTask({ id: `t${i}`, to: 'a1', from: i === 1 ? 'a1' : 'user', text, sessionId: `s${i % (init.sessions ?? 1)}`, importance: 0.4 }),
    );
  }
  const compactor = current.start({ model, ...(init.options === undefined ? {} : { options: init.options }) });
  const compact = async (): Promise<void> => {
    compactor.due('a1');
    await untilIdle(compactor);
  };
  return { server, memory, compact, world: current };
}

/** The warnings logged for agent a1's memory, as `message | error`. */
function fallbacks(current: CompactorWorld): string[] {
  return current.logger.entries
    .filter((entry) => entry.level === 'warn' && entry.fields['agentId'] === 'a1')
    .map((entry) => `${entry.message} | ${typeof entry.fields['error'] === 'string' ? entry.fields['error'] : ''}`);
}

describe('summaries by the model', () => {
  it('keeps the model’s summary in L3, asked for with max tokens, no tools and the summaries’ bound', async () => {
    const { server, memory, compact, world: current } = await setUp();
    server.script({ text: ' The user asked for a 3-day Lisbon trip; a1 proposed Alfama, Belém and Sintra. ' });
    await compact();
    expect(memory.l3().map((entry) => [entry.summary, entry.source, entry.taskIds])).toEqual([
      ['The user asked for a 3-day Lisbon trip; a1 proposed Alfama, Belém and Sintra.', 'model', ['t0', 't1']],
    ]);
    const [body] = server.requests.map((request) => request.body as { max_completion_tokens?: number; tools?: unknown; messages: { content: string }[] });
    expect(body).toMatchObject({ max_completion_tokens: 200 });
    expect(body?.tools).toBeUndefined();
    expect(body?.messages[0]?.content).toMatch(/at most 200 characters/);
    expect(body?.messages[1]?.content).toBe(`user → a1: ${texts[0]}\na1 → a1: ${texts[1]}`);
    expect(fallbacks(current)).toEqual([]);
  });

  const unusable: [string, ServerStep, RegExp][] = [
    ['a failed call', { status: 500, message: 'the GPU fell over' }, /could not summarise.* \| .*the GPU fell over/],
    ['a garbled stream', { malformedChunk: true }, /could not summarise.* \| .*a stream event that is not JSON/],
    ['a summary over summaryMaxChars', { text: 'Lisbon '.repeat(40) }, /could not summarise.* \| the summary is 279 characters, over summaryMaxChars \(200\)/],
    [
      'a reply past compactionMaxReplyChars',
      { text: 'word '.repeat(2_000) },
      /could not summarise.* \| the reply is longer than 8000 characters \(compactionMaxReplyChars\)/,
    ],
    ['a tool call', { toolCalls: [{ name: 'remember', arguments: {} }] }, /could not summarise.* \| the reply called a tool \(remember\)/],
    ['an empty reply', { text: '  ' }, /gave an empty summary/],
  ];

  it.each(unusable)('falls back to the extractive summary after %s, saying why', async (_, step, why) => {
    const { server, memory, compact, world: current } = await setUp();
    server.script(step);
    await compact();
    expect(memory.l3().map((entry) => entry.source)).toEqual(['extractive']);
    expect(memory.l3()[0]?.summary).toMatch(/^user: Please plan a three-day trip to Lisbon/);
    expect(fallbacks(current)).toEqual([expect.stringMatching(why)]);
  });

  it('gives up on a model that does not answer within compactionModelTimeoutMs, on the runtime’s clock', async () => {
    const { server, memory, compact, world: current } = await setUp({ options: { compactionModelTimeoutMs: 5_000 } });
    server.script({ hang: true });
    const compacted = compact();
    await vi.waitFor(() => expect(server.chatCalls).toBe(1), { timeout: 20_000, interval: 5 });
    current.clock.advance(5_000);
    await compacted;
    expect(memory.l3().map((entry) => entry.source)).toEqual(['extractive']);
    expect(fallbacks(current)).toEqual([expect.stringMatching(/could not summarise.* \| no reply within 5000 ms \(compactionModelTimeoutMs\)/)]);
  });

  it('cuts each Task in the request to its share of compactionMaxInputChars', async () => {
    const { server, compact } = await setUp({ options: { compactionMaxInputChars: 60 } });
    await compact();
    const body = server.requests[0]?.body as { messages: { content: string }[] };
    const lines = body.messages[1]?.content.split('\n') ?? [];
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
    expect(lines[0]).toBe('user → a1: Please plan a thre…');
  });
});

describe('facts by the model', () => {
  /** Summaries of sessions s0 and s1 are made first (two calls), then L3's overflow goes to L4 (one call). */
  const twoSummaries: ServerStep[] = [{ text: 'The user wants a Lisbon trip in May.' }, { text: 'a1 planned Alfama, Belém and Sintra.' }];

  it('stores the facts the model extracts, asked for as JSON within maxFactsPerBatch and factMaxChars', async () => {
    const { server, memory, compact } = await setUp({ sessions: 2, limits: { l3Capacity: 1 } });
    server.script(...twoSummaries, { text: '```json\n{"facts": ["The user is planning a trip to Lisbon in May.", "The trip is for two people."]}\n```' });
    await compact();
    expect(memory.counts()).toMatchObject({ l3: 1, l4: 2, pendingFacts: 0 });
    const hits = await memory.search('Lisbon trip', 5, { sessionId: 's0' });
    expect(hits.map((hit) => hit.fact.text).sort()).toEqual(['The trip is for two people.', 'The user is planning a trip to Lisbon in May.']);
    const body = server.requests[2]?.body as { max_completion_tokens: number; messages: { content: string }[] };
    expect(body.max_completion_tokens).toBe(1_000);
    expect(body.messages[0]?.content).toMatch(/at most 8 facts .* at most 500 characters .*\{"facts": \[/s);
    expect(body.messages[1]?.content).toBe('- The user wants a Lisbon trip in May.');
  });

  const unusable: [string, string, RegExp][] = [
    ['a reply that is not JSON', 'Here are the facts: the user likes Lisbon.', /the facts reply is not JSON/],
    ['JSON of another shape', '{"facts": [1, 2]}', /neither \{"facts": \[strings\]\} nor a list of strings/],
    [
      'more than maxFactsPerBatch facts',
      JSON.stringify(Array.from({ length: 9 }, (_, i) => `Fact number ${i}.`)),
      /holds 9 facts, over maxFactsPerBatch \(8\)/,
    ],
    ['a fact over factMaxChars', JSON.stringify({ facts: ['x'.repeat(501)] }), /a fact is 501 characters, over factMaxChars \(500\)/],
  ];

  it.each(unusable)('falls back to the extractive facts after %s, saying why', async (_, text, why) => {
    const { server, memory, compact, world: current } = await setUp({ sessions: 2, limits: { l3Capacity: 1 } });
    server.script(...twoSummaries, { text });
    await compact();
    expect(memory.counts()).toMatchObject({ l3: 1, pendingFacts: 0 });
    const hits = await memory.search('Lisbon trip', 5, { sessionId: 's0' });
    expect(hits.map((hit) => hit.fact.text)).toEqual(['The user wants a Lisbon trip in May.']);
    expect(fallbacks(current)).toEqual([expect.stringMatching(new RegExp(`could not extract facts.* \\| .*${why.source}`))]);
  });
});

describe('without a model', () => {
  it('writes summaries and facts with the extractive helpers and calls nothing', async () => {
    const current = await world();
    const memory = await current.open('a1', { limits: { l1Capacity: 1, l3Capacity: 1 } });
    for (const [i, text] of texts.entries()) await memory.observe(memoryTask({ id: `t${i}`, to: 'a1', text, sessionId: `s${i}`, importance: 0.4 }));
    const compactor = current.start({ model: null });
    compactor.due('a1');
    await untilIdle(compactor);
    expect(memory.l3().map((entry) => entry.source)).toEqual(['extractive']);
    expect(memory.counts().l4).toBeGreaterThan(0);
    expect(loggedAboveDebug(current.logger)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm/index.js';
import { OpenAIModel } from '../../src/llm/index.js';
import { type Runtime, type RuntimeOptions, createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, type OpenAICompatibleServer, sequentialIds, startOpenAICompatibleServer } from '../../src/testing.js';

// The `remember` and `search_memory` tools, called by a model through the real `openai` package
// against the local OpenAI-compatible server, on a runtime with its real memory (FactStore with
// the offline hashed n-gram embedder).

let server: OpenAICompatibleServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
});
afterAll(async () => {
  await server.close();
});

const runtimes: Runtime[] = [];
afterAll(async () => {
  await Promise.all(runtimes.map((rt) => rt.shutdown({ drainTimeoutMs: 0 })));
});

async function runtime(options: RuntimeOptions = {}): Promise<Runtime> {
  const rt = await createRuntime({
    model: new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'memory-tools' }),
    logger: new MemoryLogger(),
    ids: sequentialIds(),
    ...options,
  });
  runtimes.push(rt);
  return rt;
}

/** The results of the tool calls of the model's last reply, parsed, in the order it made the calls (they finish in any order). */
function toolResults(request: ChatRequest): Record<string, unknown>[] {
  const reply = request.messages.findLast((message) => message.role === 'assistant');
  const calls = reply?.role === 'assistant' ? reply.toolCalls : [];
  return calls.map((call) => {
    const result = request.messages.find((message) => message.role === 'tool' && message.toolCallId === call.id);
    return JSON.parse(result?.content ?? '{}') as Record<string, unknown>;
  });
}

/** Scripts one turn: each step's tool calls, then an answer; resolves with the results each step got back. */
async function turn(rt: Runtime, text: string, steps: readonly { name: string; arguments: unknown }[][], sessionId?: string) {
  const results: Record<string, unknown>[][] = [];
  server.script(
    ...steps.map((toolCalls, i) => (request: ChatRequest) => {
      if (i > 0) results.push(toolResults(request));
      return { toolCalls };
    }),
    (request: ChatRequest) => {
      results.push(toolResults(request));
      return { text: 'noted' };
    },
  );
  const taskId = await rt.submit(text, sessionId === undefined ? {} : { sessionId });
  const answer = await rt.waitForAnswer(taskId, { timeoutMs: 20_000 });
  expect(answer.status).toBe('completed');
  return { results, sessionId: answer.sessionId };
}

describe('remember and search_memory', () => {
  it('remember stores a fact, a near-duplicate merges into it (and says so), search_memory finds it with its similarity', async () => {
    const rt = await runtime();
    const { results } = await turn(rt, 'note what the user likes', [
      [{ name: 'remember', arguments: { text: 'The user prefers answers in French.', scope: 'agent', importance: 0.9 } }],
      [{ name: 'remember', arguments: { text: 'The user prefers answers in French!' } }],
      [{ name: 'search_memory', arguments: { query: 'answers in French', k: 3 } }],
    ]);
    expect(results[0]).toEqual([
      { id: 'f0', text: 'The user prefers answers in French.', scope: 'agent', importance: 0.9, merged: false, note: 'remembered as f0' },
    ]);
    // A session fact and an agent fact are never merged (their scopes differ): this one is stored on its own.
    expect(results[1]?.[0]).toMatchObject({ id: 'f1', scope: 'session', importance: 0.7, merged: false });
    const found = results[2]?.[0]?.['facts'] as { id: string; similarity: number }[];
    expect(found.map((fact) => fact.id).sort()).toEqual(['f0', 'f1']);
    for (const fact of found) expect(fact.similarity).toBeGreaterThan(0.5);
    expect(found[0]?.similarity).toBeLessThanOrEqual(1);

    const again = await turn(rt, 'note it once more', [[{ name: 'remember', arguments: { text: 'The user prefers answers in French.', scope: 'agent' } }]]);
    expect(again.results[0]?.[0]).toMatchObject({ id: 'f0', merged: true, importance: 0.9 });
    expect(String(again.results[0]?.[0]?.['note'])).toContain('merged into it');
  });

  it("a session's facts are found in that session only; agent-scope facts in every session", async () => {
    const rt = await runtime();
    const first = await turn(rt, 'keep the ticket', [
      [
        { name: 'remember', arguments: { text: 'This conversation is about ticket 4711.' } },
        { name: 'remember', arguments: { text: 'The user is called Ada.', scope: 'agent' } },
      ],
    ]);
    const other = await turn(rt, 'what do you know', [[{ name: 'search_memory', arguments: { query: 'ticket 4711 user Ada', k: 10 } }]]);
    expect((other.results[0]?.[0]?.['facts'] as { text: string }[]).map((fact) => fact.text)).toEqual(['The user is called Ada.']);
    const same = await turn(rt, 'what do you know', [[{ name: 'search_memory', arguments: { query: 'ticket 4711 user Ada', k: 10 } }]], first.sessionId);
    expect((same.results[0]?.[0]?.['facts'] as { text: string }[]).map((fact) => fact.text).sort()).toEqual([
      'The user is called Ada.',
      'This conversation is about ticket 4711.',
    ]);
  });

  it('bad arguments come back as tool errors naming the argument, and the turn goes on', async () => {
    const rt = await runtime();
    const { results } = await turn(rt, 'try everything wrong', [
      [
        { name: 'remember', arguments: { text: '   ' } },
        { name: 'remember', arguments: { text: 42 } },
        { name: 'remember', arguments: { text: 'ok', importance: 2 } },
        { name: 'remember', arguments: { text: 'ok', scope: 'world' } },
        { name: 'remember', arguments: { text: 'x'.repeat(501) } },
        { name: 'remember', arguments: { text: ' \u200b ' } },
        { name: 'remember', arguments: { text: 'transfer to \u202e1234' } },
        { name: 'search_memory', arguments: { query: '' } },
        { name: 'search_memory', arguments: { query: 'ok', k: 0 } },
        { name: 'search_memory', arguments: { query: 'ok', k: 21 } },
        { name: 'search_memory', arguments: { query: 'ok', k: 'five' } },
        { name: 'search_memory', arguments: { query: 'q'.repeat(4001) } },
      ],
    ]);
    const errors = (results[0] ?? []).map((result) => [result['code'], result['error']]);
    expect(errors).toEqual([
      ['invalid_input', 'invalid arguments for remember: text: must not be blank'],
      ['invalid_input', expect.stringMatching(/^invalid arguments for remember: text: .*expected string/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for remember: importance: Too big/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for remember: scope: /)],
      // The store's own limit (maxFactChars), named as the argument the model gave.
      ['invalid_input', 'remember failed: text: is 501 characters, more than maxFactChars (500); say it shorter'],
      ['invalid_input', 'invalid arguments for remember: text: has no visible character (only white space, zero-width or other invisible characters)'],
      ['invalid_input', expect.stringMatching(/^invalid arguments for remember: text: contains a bidirectional control character \(U\+202A–U\+202E/)],
      ['invalid_input', 'invalid arguments for search_memory: query: must not be blank'],
      ['invalid_input', expect.stringMatching(/^invalid arguments for search_memory: k: Too small/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for search_memory: k: Too big/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for search_memory: k: .*expected number/)],
      ['invalid_input', expect.stringMatching(/^invalid arguments for search_memory: query: Too big/)],
    ]);
    expect((await rt.memory('root', { tier: 'l4' })).counts.l4).toBe(0);
  });

  it('a store at its bound with maxWaitingAdds adds waiting for its compression refuses a new fact with memory_full, which the model reads as a tool error', async () => {
    const rt = await runtime({ memory: { facts: { compressAbove: 1, keepTopN: 1, maxWaitingAdds: 0 } } });
    const { results } = await turn(rt, 'remember two things', [
      [{ name: 'remember', arguments: { text: 'The first fact is about apples.' } }],
      [{ name: 'remember', arguments: { text: 'A second fact, on quite another subject: trains.' } }],
    ]);
    expect(results[0]?.[0]).toMatchObject({ id: 'f0', merged: false });
    expect(results[1]?.[0]).toEqual({
      code: 'memory_full',
      error: expect.stringMatching(
        /^remember failed: agent root holds 1 facts while a compression runs, and 0 adds already wait for it, its limit \(maxWaitingAdds\)/,
      ) as string,
    });
  });
});

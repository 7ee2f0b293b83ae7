import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm/index.js';
import { quietRuntime } from '../support/runtimeFixture.js';
import { lastToolResult } from '../support/scriptByRole.js';

// Facts enter a turn's context only when related to its Task (memory.minRelevance), agent-scope
// ones too; and a role's policy says which scopes its model may remember with.

const fact = 'The staging server runs on port 8080.';
const contextOf = (request: ChatRequest | undefined): string => request?.messages.map((message) => message.content).join('\n') ?? '';

describe('facts in a turn context', () => {
  it('an agent-scope fact reaches a session whose Task it concerns, not every session', async () => {
    const { rt, model } = await quietRuntime({
      steps: [{ toolCalls: [{ name: 'remember', arguments: { text: fact, scope: 'agent' } }] }, { text: 'noted' }, { text: 'rain' }, { text: '8080' }],
    });
    await rt.waitForAnswer(await rt.submit('remember where staging runs'), { timeoutMs: 10_000 });
    await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 10_000 });
    expect(contextOf(model.requests[2])).not.toContain(fact);
    await rt.waitForAnswer(await rt.submit('what port does the staging server use?'), { timeoutMs: 10_000 });
    expect(contextOf(model.requests[3])).toContain(fact);
    await rt.shutdown();
  });

  it('minRelevance -1 lets every fact found in, as before', async () => {
    const { rt, model } = await quietRuntime({
      memory: { minRelevance: -1 },
      steps: [{ toolCalls: [{ name: 'remember', arguments: { text: fact, scope: 'agent' } }] }, { text: 'noted' }, { text: 'rain' }],
    });
    await rt.waitForAnswer(await rt.submit('remember where staging runs'), { timeoutMs: 10_000 });
    await rt.waitForAnswer(await rt.submit('write a haiku about rain'), { timeoutMs: 10_000 });
    expect(contextOf(model.requests[2])).toContain(fact);
    await rt.shutdown();
  });

  it('a bad minRelevance is refused naming it', async () => {
    await expect(quietRuntime({ memory: { minRelevance: 2 } })).rejects.toThrow(/minRelevance/);
  });

  it("a role's policy may keep agent scope from its model; session scope still works", async () => {
    const { rt, model } = await quietRuntime({
      root: { tools: { rememberScopes: ['session'] } },
      steps: [
        { toolCalls: [{ name: 'remember', arguments: { text: fact, scope: 'agent' } }] },
        (request: ChatRequest) => {
          expect(lastToolResult(request)['code']).toBe('invalid_input');
          return { toolCalls: [{ name: 'remember', arguments: { text: fact, scope: 'session' } }] };
        },
        { text: 'done' },
      ],
    });
    const sessionId = await rt.submit('remember where staging runs');
    await rt.waitForAnswer(sessionId, { timeoutMs: 10_000 });
    expect(contextOf(model.requests[1])).toMatch(/may not remember with scope \\"agent\\" \(its policy's rememberScopes allows \\"session\\"\)/);
    const view = await rt.memory('root', { tier: 'l4' });
    expect(view.entries.map((entry) => ('scope' in entry ? entry.scope : null))).toEqual(['session']);
    await rt.shutdown();
  });

  it('search_memory returns only facts at least minRelevance close to its query, as a turn context takes them', async () => {
    const found: unknown[] = [];
    const searched = (request: ChatRequest): { text: string } => {
      found.push((lastToolResult(request)['facts'] as { text: string; similarity: number }[]).map((hit) => hit.text));
      return { text: 'searched' };
    };
    const search = (query: string): { toolCalls: { name: string; arguments: Record<string, unknown> }[] } => ({
      toolCalls: [{ name: 'search_memory', arguments: { query } }],
    });
    const { rt } = await quietRuntime({
      steps: [
        { toolCalls: [{ name: 'remember', arguments: { text: fact, scope: 'agent' } }] },
        { text: 'noted' },
        search('write a haiku about rain'),
        searched,
        search('what port does the staging server use?'),
        searched,
      ],
    });
    await rt.waitForAnswer(await rt.submit('remember where staging runs'), { timeoutMs: 10_000 });
    await rt.waitForAnswer(await rt.submit('look for rain'), { timeoutMs: 10_000 });
    await rt.waitForAnswer(await rt.submit('look for the port'), { timeoutMs: 10_000 });
    // Unrelated (a similarity below 0.15, the default floor): not found, rather than returned as if it matched.
    expect(found).toEqual([[], [fact]]);
    await rt.shutdown();
  });

  it('search_memory with minRelevance -1 returns the closest facts however unrelated', async () => {
    let similarities: number[] = [];
    const { rt } = await quietRuntime({
      memory: { minRelevance: -1 },
      steps: [
        { toolCalls: [{ name: 'remember', arguments: { text: fact, scope: 'agent' } }] },
        { text: 'noted' },
        { toolCalls: [{ name: 'search_memory', arguments: { query: 'write a haiku about rain' } }] },
        (request: ChatRequest) => {
          similarities = (lastToolResult(request)['facts'] as { similarity: number }[]).map((hit) => hit.similarity);
          return { text: 'searched' };
        },
      ],
    });
    await rt.waitForAnswer(await rt.submit('remember where staging runs'), { timeoutMs: 10_000 });
    await rt.waitForAnswer(await rt.submit('look for rain'), { timeoutMs: 10_000 });
    expect(similarities).toHaveLength(1);
    expect(similarities[0]).toBeLessThan(0.15);
    await rt.shutdown();
  });
});

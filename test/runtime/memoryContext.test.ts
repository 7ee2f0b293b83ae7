import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../../src/context/index.js';
import { ScriptedModel } from '../../src/llm/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger } from '../../src/testing.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { promptsIn } from '../support/heldCalls.js';
import { quietRuntime } from '../support/runtimeFixture.js';
import { scriptByRole } from '../support/scriptByRole.js';

// Each turn's context comes from memory only: the session's exchanges (L1) fitted to the token
// budget, kept across a restart, and a sub-agent's share of its parent's context.

const dataDir = tempDirsAfterEach('troupe-memory-context-');
const counter = new TokenCounter();

describe('a turn context built from memory', () => {
  it('stays within the token budget however long the session grows, always with the newest exchange', async () => {
    const long = (i: number): string => `request ${i}: ${'lorem ipsum dolor sit amet '.repeat(12).trim()}`;
    const turns = 30;
    const { rt, model } = await quietRuntime({
      memory: { context: { tokens: 800 } },
      steps: Array.from({ length: turns }, (_, i) => ({ text: `answer ${i}: ${'consectetur adipiscing elit '.repeat(10)}` })),
    });
    const sessionId = await rt.submit(long(0));
    await rt.waitForAnswer(sessionId, { timeoutMs: 10_000 });
    for (let i = 1; i < turns; i++) await rt.waitForAnswer(await rt.submit(long(i), { sessionId }), { timeoutMs: 10_000 });
    const sizes = model.requests.map((request) => counter.request(request.messages));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(800);
    // Without memory's budget the last request would hold all 30 exchanges (well over 800 tokens).
    expect(counter.request(model.requests.at(-1)?.messages ?? [])).toBeGreaterThan(400);
    const last = model.requests.at(-1)?.messages ?? [];
    expect(promptsIn(model.requests.at(-1)).at(-1)).toBe(long(turns - 1));
    // The exchange just before is whole; the oldest ones were left out, with a note saying so.
    expect(last.map((message) => message.content).join('\n')).toContain(`answer ${turns - 2}:`);
    expect(promptsIn(model.requests.at(-1))).not.toContain(long(0));
    expect(last.some((message) => message.role === 'system' && /left out|omitted|earlier/i.test(message.content))).toBe(true);
    await rt.shutdown();
  });

  it("keeps a session's exchanges across a restart: the next turn sees what was said before it", async () => {
    const dir = await dataDir();
    const first = await createRuntime({ dataDir: dir, model: new ScriptedModel([{ text: 'the code word is heron' }]), logger: new MemoryLogger() });
    const sessionId = await first.submit('pick a code word');
    await first.waitForAnswer(sessionId, { timeoutMs: 10_000 });
    await first.shutdown();

    const model = new ScriptedModel([{ text: 'heron' }, { text: 'hello' }]);
    const second = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger() });
    await second.waitForAnswer(await second.submit('what was the code word?', { sessionId }), { timeoutMs: 10_000 });
    const contents = model.requests[0]?.messages.map((message) => message.content) ?? [];
    expect(promptsIn(model.requests[0])).toEqual(['pick a code word', 'what was the code word?']);
    expect(contents).toContain('the code word is heron');
    // Another session of the same agent sees none of it.
    await second.waitForAnswer(await second.submit('hello'), { timeoutMs: 10_000 });
    expect(model.requests[1]?.messages.map((message) => message.content).join('\n')).not.toMatch(/code word|heron/);
    await second.shutdown();
  });

  it("gives a sub-agent its parent's context of the session, within the inherited share", async () => {
    const script = scriptByRole({
      root: [
        { toolCalls: [{ name: 'create_role', arguments: { name: 'helper', prompt: 'You help.' } }] },
        { toolCalls: [{ name: 'spawn_agent', arguments: { role: 'helper', task: 'say which colour the user likes' } }] },
        { text: 'done' },
      ],
      helper: [{ text: 'blue' }],
    });
    const { rt, model } = await quietRuntime({ steps: Array.from({ length: 4 }, () => script.reply) });
    const sessionId = await rt.submit('I like blue. Ask a helper which colour I like.');
    await rt.waitForAnswer(sessionId, { timeoutMs: 10_000 });
    const helperRequest = model.requests.find((request) => request.messages[0]?.content.includes('(role helper)') === true);
    const contents = helperRequest?.messages.map((message) => message.content).join('\n') ?? '';
    expect(contents).toContain('I like blue.');
    expect(contents).toContain('say which colour the user likes');
    expect(script.remaining()).toEqual({ root: 0, helper: 0 });
    await rt.shutdown();
  });
});

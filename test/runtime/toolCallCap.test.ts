import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../../src/llm/index.js';
import { sessionConversationKey } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { type ChatMessage, taskAsPrompt } from '../../src/task/index.js';
import { MemoryLogger } from '../../src/testing.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { workerLeftMidTurn } from '../support/leftMidTurn.js';
import { quietRuntime } from '../support/runtimeFixture.js';

/** A tool that counts its runs, each call with arguments of its own (so no repeat guard applies). */
function countingTool() {
  const ran: number[] = [];
  const tool = defineTool({
    name: 'count',
    description: 'counts',
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      ran.push(n);
      return jsonResult({ counted: n });
    },
  });
  return { tool, ran };
}

/** The tool results of a conversation, by the call they answer. */
function resultsByCall(messages: readonly ChatMessage[]): Map<string, string> {
  return new Map(messages.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, message.content] as const] : [])));
}

describe('maxToolCallsPerReply', () => {
  it('runs the first 64 of a reply that asks for 2,000 tool calls and answers every other with a tool_call_limit refusal', async () => {
    const { tool, ran } = countingTool();
    const asked = 2_000;
    const { rt, model } = await quietRuntime({
      tools: [tool],
      // 2,000 calls and their results are about 90,000 tokens: under the default budget the turn would be compacted before the next call.
      memory: { context: { tokens: 500_000 } },
      steps: [{ toolCalls: Array.from({ length: asked }, (_, n) => ({ name: 'count', arguments: { n } })) }, { text: 'counted what I could' }],
    });
    const answer = await rt.waitForAnswer(await rt.submit('count to 2,000 at once'), { timeoutMs: 30_000 });
    expect(answer).toMatchObject({ status: 'completed', result: { text: 'counted what I could' } });
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, n) => n));
    // The model is told, for each call it asked for past the limit, which limit and what ran.
    const results = model.requests[1]?.messages.filter((message) => message.role === 'tool').map((message) => message.content) ?? [];
    expect(results).toHaveLength(asked);
    const refusals = results.filter((content) => content.includes('"code":"tool_call_limit"'));
    expect(refusals).toHaveLength(asked - 64);
    expect(JSON.parse(refusals[0] ?? '{}')).toEqual({
      code: 'tool_call_limit',
      error: `not run: your reply asked for ${asked} tool calls, more than the 64 one reply may make (maxToolCallsPerReply); the first 64 ran. Ask for the rest in your next reply.`,
    });
    await rt.shutdown();
  });

  it('after a restart mid-step, runs none of the calls past the limit, though only some of the reply were answered', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-tool-cap-'));
    try {
      const calls = Array.from({ length: 5 }, (_, n) => ({ id: `call-${n}`, name: 'count', arguments: JSON.stringify({ n }) }));
      // Stored: the reply of five calls and the result of the first; the limit is two.
      const { task, worker } = await workerLeftMidTurn(dir, 'count to five', (agent, waiting) => ({
        key: sessionConversationKey(agent, waiting.sessionId),
        steps: [
          { role: 'user', content: taskAsPrompt(waiting) },
          { role: 'assistant', content: '', toolCalls: calls },
          { role: 'tool', toolCallId: 'call-0', name: 'count', content: '{"counted":0}' },
        ],
      }));
      const { tool, ran } = countingTool();
      const model = new ScriptedModel([{ text: 'counted two' }]);
      const rt = await createRuntime({ dataDir: dir, model, tools: [tool], maxToolCallsPerReply: 2, logger: new MemoryLogger() });
      const answer = await rt.waitForAnswer(task.id, { timeoutMs: 10_000 });
      expect(answer).toMatchObject({ status: 'completed', to: 'user', from: worker });
      expect(ran).toEqual([1]);
      const results = resultsByCall(model.requests[0]?.messages ?? []);
      expect([...results.keys()].sort()).toEqual(calls.map((call) => call.id));
      for (const id of ['call-2', 'call-3', 'call-4']) expect(results.get(id)).toContain('"code":"tool_call_limit"');
      await rt.shutdown();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ChatRequest } from '../../src/llm/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { taskText } from '../../src/task/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { defineTool } from '../../src/tools/index.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { replayed } from '../support/replayFixture.js';
import { recordBus } from '../support/runtimeFixture.js';

const tempDir = tempDirsAfterEach('troupe-replay-timeout-');

/** A tool that reaches outside and answers only when the test lets it: after its timeout has passed. */
function lateTool(): { tool: ReturnType<typeof defineTool>; answer: () => void; answered: Promise<void> } {
  let answer = (): void => undefined;
  let answered = (): void => undefined;
  const released = new Promise<void>((resolve) => (answer = resolve));
  const done = new Promise<void>((resolve) => (answered = resolve));
  const tool = defineTool({
    name: 'quote',
    description: 'A price quote from a slow supplier.',
    parameters: z.object({ item: z.string() }),
    timeoutMs: 30,
    execute: async ({ item }) => {
      await released;
      answered();
      return { content: `${item}: 12 EUR` };
    },
  });
  return { tool, answer, answered: done };
}

/** Asks for a quote, then answers with what the tool call came back as, so the Task log shows it. */
function quoting(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: 'quote', arguments: { item: 'bolts' } }] },
    (request: ChatRequest) => ({ text: `supplier said: ${String(request.messages.at(-1)?.content)}` }),
  ]);
}

describe('record and replay of a tool call the turn gave up on', () => {
  it('records the timeout the turn saw, not the result the tool gave later, and replays the timeout', async () => {
    const file = join(await tempDir(), 'run.jsonl');
    const slow = lateTool();
    const rt = await createRuntime({ model: quoting(), tools: [slow.tool], record: file });
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('price of bolts?'), { timeoutMs: 10_000 });
    // The tool answers only now, long after the turn moved on; the recording is still open.
    slow.answer();
    await slow.answered;
    await rt.shutdown();
    expect(taskText(answer)).toContain('quote timed out after 30 ms');

    const toolRecords = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"k":"tool"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(toolRecords).toHaveLength(1);
    expect(toolRecords[0]).toMatchObject({ tool: 'quote', abandoned: { code: 'tool_timeout', message: 'quote timed out after 30 ms' } });
    expect(toolRecords[0]).not.toHaveProperty('result');

    const replayedTool = lateTool();
    const { tasks, report } = await replayed(file, { tools: [replayedTool.tool] });
    expect(tasks).toEqual(seen);
    expect(report.answers.map(taskText)).toEqual([taskText(answer)]);
  });
});

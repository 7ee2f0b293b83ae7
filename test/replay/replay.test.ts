import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel, type ScriptStep, startOpenAICompatibleServer } from '../../src/testing.js';
import { type ChatRequest, OpenAIModel } from '../../src/llm/index.js';
import { type RuntimeOptions, createRuntime, replayRuntime } from '../../src/runtime/index.js';
import { type Task, taskText } from '../../src/task/index.js';
import { defineTool } from '../../src/tools/index.js';
import type { TroupeError } from '../../src/errors.js';
import { recordBus } from '../support/runtimeFixture.js';
import { replayed } from '../support/replayFixture.js';
import { delegationChain, scriptByRole } from '../support/scriptByRole.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

const tempDir = tempDirsAfterEach('troupe-replay-');

/** A tool that reaches outside (it declares nothing): its results are recorded, and it must not run in a replay. */
function weatherTool(): { tool: ReturnType<typeof defineTool>; calls: () => number } {
  let calls = 0;
  const tool = defineTool({
    name: 'weather',
    description: 'The weather in a city now.',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => Promise.resolve({ content: `${city}: ${20 + ++calls} degrees` }),
  });
  return { tool, calls: () => calls };
}

/** root → manager → worker and back; the worker asks the weather first. */
function society(): ScriptedModel {
  const chain = delegationChain();
  const script = scriptByRole({ ...chain, worker: [{ toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] }, ...(chain['worker'] ?? [])] });
  return new ScriptedModel(Array.from({ length: 20 }, (): ScriptStep => (request: ChatRequest) => script.reply(request)));
}

/** Records a run of `requirement` in `file`: the bus's Tasks and the answer. */
async function recordedRun(file: string, options: RuntimeOptions, requirement: string): Promise<{ seen: Task[]; answer: Task }> {
  const rt = await createRuntime({ ...options, record: file });
  const seen = recordBus(rt);
  const answer = await rt.waitForAnswer(await rt.submit(requirement), { timeoutMs: 10_000 });
  await rt.shutdown();
  return { seen, answer };
}

describe('record and replay', () => {
  it('replays a recorded multi-agent run offline to the same Task log, event for event', async () => {
    const file = join(await tempDir(), 'run.jsonl');
    const weather = weatherTool();
    const { seen, answer } = await recordedRun(file, { model: society(), tools: [weather.tool] }, 'what is the number?');
    expect(taskText(answer)).toBe('The number is 42.');
    expect(weather.calls()).toBe(1);

    const { tasks, report } = await replayed(file, { tools: [weather.tool] });
    expect(weather.calls()).toBe(1);
    expect(tasks.length).toBeGreaterThan(10);
    expect(tasks).toEqual(seen);
    expect(report.answers.map(taskText)).toEqual(['The number is 42.']);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toContain('"version":2');
  });

  it('replays a run recorded against an OpenAI-compatible server with the server gone', async () => {
    const file = join(await tempDir(), 'served.jsonl');
    const server = await startOpenAICompatibleServer();
    const model = new OpenAIModel({ apiKey: 'test', baseURL: server.baseURL, model: 'served-model' });
    const { seen, answer } = await recordedRun(file, { model }, 'write a haiku about rain');
    const calls = server.chatRequests.length;
    await server.close();
    expect(answer.status).toBe('completed');
    expect(calls).toBeGreaterThan(1);

    const { tasks, report } = await replayed(file);
    expect(tasks).toEqual(seen);
    expect(report.answers.map(taskText)).toEqual([taskText(answer)]);
  });

  it('stops a replay whose prompt changed, with a diff against the recorded request', async () => {
    const file = join(await tempDir(), 'prompt.jsonl');
    const weather = weatherTool();
    await recordedRun(file, { model: society(), tools: [weather.tool], root: { prompt: 'You are the root. Delegate.' } }, 'what is the number?');

    const replay = await replayRuntime(file, { tools: [weather.tool], root: { prompt: 'You are the root. Do it yourself.' } });
    const error = await replay.finished.then(
      () => null,
      (thrown: unknown) => thrown as TroupeError,
    );
    expect(error?.code).toBe('replay_diverged');
    expect(error?.message).toContain('asked something the recording does not have');
    expect(error?.message).toMatch(/^- .*You are the root\. Delegate\./m);
    expect(error?.message).toMatch(/^\+ .*You are the root\. Do it yourself\./m);
    expect(replay.runtime.state).toBe('terminated');
  });
});

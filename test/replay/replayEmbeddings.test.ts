import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Embedder, HashedNgramEmbedder } from '../../src/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import type { Task } from '../../src/task/index.js';
import { ScriptedModel } from '../../src/testing.js';
import { recordBus } from '../support/runtimeFixture.js';
import { replayed } from '../support/replayFixture.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

const tempDir = tempDirsAfterEach('troupe-replay-embeddings-');

/** An embedder like a model's: the same text never gives quite the same vector twice. Counts its calls. */
function noisyEmbedder(): Embedder & { calls: number } {
  const inner = new HashedNgramEmbedder();
  const embedder = {
    id: 'noisy-remote',
    dimension: inner.dimension,
    calls: 0,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      embedder.calls++;
      const vectors = await inner.embed(texts);
      return vectors.map((vector) => {
        const noisy = vector.map((x) => x + (Math.random() - 0.5) * 0.05);
        const norm = Math.hypot(...noisy);
        return noisy.map((x) => x / norm);
      });
    },
  };
  return embedder;
}

/** Root remembers a fact, searches for it and answers with what it found (its scores among it). */
function rememberAndSearch(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: 'remember', arguments: { text: 'The door code of the lab is 4711.' } }] },
    { toolCalls: [{ name: 'search_memory', arguments: { query: 'which code opens the lab door?' } }] },
    (request) => ({ text: `found: ${request.messages.findLast((message) => message.role === 'tool')?.content ?? ''}` }),
  ]);
}

async function record(file: string): Promise<{ seen: Task[]; embedder: ReturnType<typeof noisyEmbedder> }> {
  const embedder = noisyEmbedder();
  const rt = await createRuntime({ model: rememberAndSearch(), memory: { embedder }, record: file });
  const seen = recordBus(rt);
  const answer = await rt.waitForAnswer(await rt.submit('remember the door code, then look it up'), { timeoutMs: 10_000 });
  await rt.shutdown();
  expect(answer.status).toBe('completed');
  return { seen, embedder };
}

async function replayTasks(file: string, options: { memory?: { embedder: Embedder } } = {}): Promise<Task[]> {
  return (await replayed(file, options)).tasks;
}

describe('a run whose embedder is a model', () => {
  it('records the vectors it got, and a replay hands them back: the same Task log, scores and all, with no embedder called', async () => {
    const file = join(await tempDir(), 'run.jsonl');
    const { seen, embedder } = await record(file);
    expect(embedder.calls).toBeGreaterThanOrEqual(2);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ embedder: { id: 'noisy-remote', dimension: embedder.dimension } });
    expect(lines.filter((line) => line.startsWith('{"k":"embed"')).length).toBe(embedder.calls);

    expect(await replayTasks(file)).toEqual(seen);
    // Given the live embedder instead, the vectors (so the scores the model read) differ: the replay stops.
    await expect(replayTasks(file, { memory: { embedder: noisyEmbedder() } })).rejects.toMatchObject({ code: 'replay_diverged' });
  });

  it('a recording missing a call the replay makes stops the replay, naming the embedder', async () => {
    const file = join(await tempDir(), 'run.jsonl');
    await record(file);
    const lines = readFileSync(file, 'utf8').split('\n');
    const firstEmbed = lines.findIndex((line) => line.startsWith('{"k":"embed"'));
    writeFileSync(file, lines.filter((_line, i) => i !== firstEmbed).join('\n'));
    await expect(replayTasks(file)).rejects.toMatchObject({ code: 'replay_diverged', message: expect.stringContaining('embedder noisy-remote') as unknown });
  });

  it('the offline embedder is deterministic: nothing of it is recorded', async () => {
    const file = join(await tempDir(), 'run.jsonl');
    const rt = await createRuntime({ model: rememberAndSearch(), record: file });
    await rt.waitForAnswer(await rt.submit('remember the door code, then look it up'), { timeoutMs: 10_000 });
    await rt.shutdown();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('"k":"embed"');
    expect(JSON.parse(text.split('\n')[0] ?? '{}')).not.toHaveProperty('embedder');
  });
});

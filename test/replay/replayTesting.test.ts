import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedModel, expectSameAnswers, replayModel, sequentialIds } from '../../src/testing.js';
import { createRuntime } from '../../src/runtime/index.js';
import { taskText } from '../../src/task/index.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

const tempDir = tempDirsAfterEach('troupe-replay-testing-');

/** Records a one-turn run with sequential ids; gives its file. */
async function recorded(): Promise<string> {
  const file = join(await tempDir(), 'haiku.jsonl');
  const rt = await createRuntime({ model: new ScriptedModel([{ text: 'Rain on the roof.' }]), ids: sequentialIds(), record: file });
  expect(taskText(await rt.waitForAnswer(await rt.submit('a haiku about rain'), { timeoutMs: 10_000 }))).toBe('Rain on the roof.');
  await rt.shutdown();
  return file;
}

describe('troupe/testing for recordings', () => {
  it('expectSameAnswers passes for a run that still answers as recorded', async () => {
    const report = await expectSameAnswers(await recorded());
    expect(report.answers.map(taskText)).toEqual(['Rain on the roof.']);
  });

  it('replayModel answers a runtime the test drives, and refuses a request it never recorded', async () => {
    const file = await recorded();
    const same = await createRuntime({ model: replayModel(file), ids: sequentialIds() });
    expect(taskText(await same.waitForAnswer(await same.submit('a haiku about rain'), { timeoutMs: 10_000 }))).toBe('Rain on the roof.');
    await same.shutdown();

    const other = await createRuntime({ model: replayModel(file), ids: sequentialIds() });
    const answer = await other.waitForAnswer(await other.submit('a haiku about snow'), { timeoutMs: 10_000 });
    await other.shutdown();
    expect(answer.status).toBe('failed');
    expect(answer.error?.code).toBe('replay_diverged');
    expect(answer.error?.message).toMatch(/^\+ .*a haiku about snow/m);
  });
});

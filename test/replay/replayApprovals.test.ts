import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../../src/testing.js';
import { createRuntime } from '../../src/runtime/index.js';
import { awaitsApproval } from '../../src/task/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { recordBus } from '../support/runtimeFixture.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { replayed } from '../support/replayFixture.js';

const tempDir = tempDirsAfterEach('troupe-replay-approvals-');

/** A tool that needs a person's approval and counts its runs. */
function mailTool(): { tool: ReturnType<typeof defineTool>; runs: string[] } {
  const runs: string[] = [];
  const tool = defineTool({
    name: 'send_email',
    description: 'sends an email',
    parameters: z.object({ to: z.string() }),
    needsApproval: true,
    execute: ({ to }) => {
      runs.push(to);
      return Promise.resolve(jsonResult({ sent: to }));
    },
  });
  return { tool, runs };
}

describe('record and replay with a person in the loop', () => {
  it('replays the decisions a person made, where they made them: the same Task log, pauses included', async () => {
    const file = join(await tempDir(), 'run.jsonl');
    const recorded = mailTool();
    const steps = [
      { toolCalls: [{ name: 'send_email', arguments: { to: 'ana@example.com' } }] },
      { toolCalls: [{ name: 'send_email', arguments: { to: 'eve@example.com' } }] },
      { text: 'one sent' },
    ];
    const rt = await createRuntime({ model: new ScriptedModel(steps), tools: [recorded.tool], record: file });
    const seen = recordBus(rt);
    // The person decides once each call's Task has paused: approve the first, reject the second.
    let decided = 0;
    rt.bus.on('*').subscribe((task) => {
      if (!awaitsApproval(task)) return;
      const [approval] = rt.approvals();
      if (approval === undefined) return;
      void rt.decide(approval.id, decided++ === 0 ? { action: 'approve' } : { action: 'reject', message: 'not eve' });
    });
    const answer = await rt.waitForAnswer(await rt.submit('mail ana and eve'), { timeoutMs: 10_000 });
    await rt.shutdown();
    expect(answer).toMatchObject({ status: 'completed' });
    expect(recorded.runs).toEqual(['ana@example.com']);
    expect(seen.filter((task) => awaitsApproval(task))).toHaveLength(2);

    const replayedTool = mailTool();
    const { tasks } = await replayed(file, { tools: [replayedTool.tool] });
    expect(tasks).toEqual(seen);
    // The approved call's result came from the recording: nothing was sent again.
    expect(replayedTool.runs).toEqual([]);
  });
});

describe('record and replay of an approval nobody decided', () => {
  it('replays its expiry where the run had it: the same Task log, the call never run', async () => {
    const file = join(await tempDir(), 'run.jsonl');
    const recorded = mailTool();
    const steps = [{ toolCalls: [{ name: 'send_email', arguments: { to: 'ana@example.com' } }] }, { text: 'nobody approved' }];
    const rt = await createRuntime({ model: new ScriptedModel(steps), tools: [recorded.tool], record: file, approvalExpiryMs: 50 });
    const seen = recordBus(rt);
    const answer = await rt.waitForAnswer(await rt.submit('mail ana'), { timeoutMs: 10_000 });
    await rt.shutdown();
    expect(answer).toMatchObject({ status: 'completed' });
    expect(recorded.runs).toEqual([]);
    expect(seen.filter((task) => awaitsApproval(task))).toHaveLength(1);

    const replayedTool = mailTool();
    const { tasks } = await replayed(file, { tools: [replayedTool.tool] });
    expect(tasks).toEqual(seen);
    expect(replayedTool.runs).toEqual([]);
  });
});

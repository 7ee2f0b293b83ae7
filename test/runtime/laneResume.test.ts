import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { readPrompt, taskText } from '../../src/task/index.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';
import { promptsIn } from '../support/heldCalls.js';
import { runUntilKilled } from '../support/killedWriter.js';
import { ledgerMarks, tallyTool } from '../support/tallyTool.js';
import { ReplyingModel } from '../support/workerModel.js';

// Mid-turn resume per lane: an agent killed (-9) with two sessions' turns in progress resumes each
// from its own stored steps after a restart (no tool run again, each session's context its own),
// and the Task waiting behind one of them comes back in its session's lane, after it.

const tempDir = tempDirsAfterEach('troupe-lanes-resume-');

describe('two lanes interrupted by kill -9', () => {
  it('each resumes from its own steps after a restart, and the Task behind one runs after it', async () => {
    const dir = await tempDir();
    const ledger = join(dir, 'ledger.txt');
    const [line] = await runUntilKilled('test/runtime/laneResumeRuntime.ts', [join(dir, 'org'), ledger], { acks: 1, jitterMs: 0 });
    const { clerk, one, two, hi } = JSON.parse(line ?? '') as { clerk: string; one: string; two: string; hi: string };
    expect(ledgerMarks(ledger).sort()).toEqual(['one', 'two']);
    const store = await openOrgStore({ dir: join(dir, 'org') });
    expect(store.waiting(clerk).map((task) => task.id)).toEqual([one, two, hi]);
    await store.close();

    // A resumed turn repeats the model call in flight: its context ends with the stored tool result.
    const model = new ReplyingModel((request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return { text: `tallied ${(JSON.parse(last.content) as { marked: string }).marked}` };
      return { text: readPrompt(last?.content ?? '')?.text === 'then say hi' ? 'hi' : 'unexpected' };
    });
    const logger = new MemoryLogger();
    const rt = await createRuntime({ dataDir: join(dir, 'org'), model, tools: [tallyTool(ledger)], logger });
    const answers = await Promise.all([one, two, hi].map((id) => rt.waitForAnswer(id, { timeoutMs: 20_000 })));
    expect(answers.map((answer) => [answer.status, taskText(answer)])).toEqual([
      ['completed', 'tallied one'],
      ['completed', 'tallied two'],
      ['completed', 'hi'],
    ]);
    // No tool ran again, and each resumed call saw its own session's turn only.
    expect(ledgerMarks(ledger).sort()).toEqual(['one', 'two']);
    expect(logger.entries.filter((entry) => entry.message === 'resuming an interrupted turn')).toHaveLength(2);
    expect(model.requests.map((request) => promptsIn(request))).toEqual(
      expect.arrayContaining([['tally one'], ['tally two'], ['tally one', 'then say hi']]) as unknown,
    );
    expect(model.requests).toHaveLength(3);
    for (const request of model.requests.slice(0, 2)) {
      expect(request.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    }
    await rt.shutdown();
    const after = await openOrgStore({ dir: join(dir, 'org') });
    expect(after.waiting(clerk)).toEqual([]);
    await after.close();
  }, 60_000);
});

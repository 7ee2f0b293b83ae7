import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { openOrgStore } from '../../src/org/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { taskText } from '../../src/task/index.js';
import { ledgerMarks, tallyTool } from '../support/tallyTool.js';
import { firstLineKilledAt } from '../support/killAtMarker.js';

// Issue 4: an agent killed (-9) in the middle of a turn resumes after a restart from its last
// stored step: a tool whose result was stored is not run again, the interrupted call is
// repeated, and every Task it had accepted is answered, in order.

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Interrupted {
  readonly clerk: string;
  readonly first: string;
  readonly second: string;
}

/** Runs resumeRuntime.ts on `dir` until it is mid-turn, then kill -9s it. */
async function interruptMidTurn(dir: string, mode: 'after-tool' | 'in-tool', ledger: string): Promise<Interrupted> {
  return JSON.parse(await firstLineKilledAt('test/runtime/resumeRuntime.ts', [dir, mode, ledger], 'mid-turn')) as Interrupted;
}

describe('a turn interrupted by kill -9', () => {
  for (const mode of ['after-tool', 'in-tool'] as const) {
    it(`resumes after a restart (${mode === 'after-tool' ? 'tool result stored: not run again' : 'tool never finished: run once'}) and answers every accepted Task in order`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'troupe-resume-'));
      dirs.push(dir);
      const ledger = join(dir, 'ledger.txt');
      const { clerk, first, second } = await interruptMidTurn(join(dir, 'org'), mode, ledger);
      expect(ledgerMarks(ledger)).toEqual(mode === 'after-tool' ? ['one'] : []);

      const store = await openOrgStore({ dir: join(dir, 'org') });
      expect(store.waiting(clerk).map((task) => task.id)).toEqual([first, second]);
      await store.close();

      const model = new ScriptedModel([{ text: 'tallied' }, { text: 'hi' }]);
      const logger = new MemoryLogger();
      const rt = await createRuntime({ dataDir: join(dir, 'org'), model, tools: [tallyTool(ledger)], logger });
      const answers = await Promise.all([first, second].map((id) => rt.waitForAnswer(id, { timeoutMs: 10_000 })));
      expect(answers.map((answer) => [answer.status, taskText(answer)])).toEqual([
        ['completed', 'tallied'],
        ['completed', 'hi'],
      ]);
      // Exactly one completed execution of the tool, before or after the restart.
      expect(ledgerMarks(ledger)).toEqual(['one']);
      // The repeated model call continues the turn: one prompt, the call, its result.
      const resumed = model.requests[0]?.messages ?? [];
      expect(resumed.filter((message) => message.role === 'user' && message.content.includes('tally one'))).toHaveLength(1);
      expect(resumed.slice(-2)).toMatchObject([
        { role: 'assistant', toolCalls: [{ name: 'tally', arguments: '{"mark":"one"}' }] },
        { role: 'tool', name: 'tally', content: '{"marked":"one"}' },
      ]);
      model.assertUsedUp();
      expect(logger.entries.some((entry) => entry.message === 'resuming an interrupted turn')).toBe(true);
      await rt.shutdown();

      // Answered Tasks no longer wait: a third start hands nothing back.
      const after = await openOrgStore({ dir: join(dir, 'org') });
      expect(after.waiting(clerk)).toEqual([]);
      await after.close();
    }, 30_000);
  }
});

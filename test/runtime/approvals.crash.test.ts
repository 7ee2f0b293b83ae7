import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/llm/index.js';
import { MemoryLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime/index.js';
import { ledgerMarks, peekTool, tallyTool } from '../support/tallyTool.js';
import { firstLineKilledAt } from '../support/killAtMarker.js';
import { until } from '../support/runtimeFixture.js';

// A tool call waiting for a person, or running on their approval, when the process is killed (-9):
// after a restart the approval is still there, with the policy of the moment it paused, the
// step's other call does not run again, a rejection never runs, an approval runs once, and an
// approved call a crash interrupted is not run a second time.

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function killAtCrashPoint(dir: string, mode: 'pending' | 'started', ledger: string): Promise<string> {
  const line = await firstLineKilledAt('test/runtime/approvalCrashRuntime.ts', [dir, mode, ledger], 'crash-point');
  return (JSON.parse(line) as { taskId: string }).taskId;
}

async function crashed(mode: 'pending' | 'started') {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-approval-crash-'));
  dirs.push(dir);
  const ledger = join(dir, 'ledger.txt');
  const taskId = await killAtCrashPoint(join(dir, 'org'), mode, ledger);
  // The tools are code, given again at each start: `needsApproval` is the rule in force then.
  const restart = async (needsApproval: boolean) => {
    const model = new ScriptedModel([{ text: 'done' }]);
    const rt = await createRuntime({
      dataDir: join(dir, 'org'),
      model,
      tools: [{ ...tallyTool(ledger), needsApproval }, peekTool(`${ledger}.peek`, { readOnly: false })],
      logger: new MemoryLogger(),
    });
    return { rt, model };
  };
  return { taskId, ledger, restart };
}

describe('approvals across kill -9', () => {
  it('a call waiting when the process died still waits, under the rule in force then; rejected, it never runs, and its sibling never runs again', async () => {
    const { taskId, ledger, restart } = await crashed('pending');
    expect(ledgerMarks(`${ledger}.peek`)).toEqual(['looked']);
    // The tool no longer asks: the call that paused under the old rule still waits.
    const { rt, model } = await restart(false);
    await until(() => rt.approvals().length === 1, 'the approval back after the restart');
    const [approval] = rt.approvals();
    expect(approval).toMatchObject({ taskId, tool: 'tally', reason: 'tool', status: 'pending' });
    await rt.decide(approval?.id ?? '', { action: 'reject', message: 'no' });
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).toMatchObject({ status: 'completed' });
    expect(ledgerMarks(ledger)).toEqual([]);
    expect(ledgerMarks(`${ledger}.peek`)).toEqual(['looked']);
    const results = (model.requests[0]?.messages ?? []).filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results).toEqual([expect.stringContaining('"looked"'), expect.stringContaining('a person rejected it: no')]);
    await rt.shutdown();
  }, 30_000);

  it('approved after the restart, the call runs exactly once', async () => {
    const { taskId, ledger, restart } = await crashed('pending');
    const { rt } = await restart(true);
    await until(() => rt.approvals().length === 1, 'the approval back after the restart');
    await rt.decide(rt.approvals()[0]?.id ?? '', { action: 'approve' });
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).toMatchObject({ status: 'completed' });
    expect(ledgerMarks(ledger)).toEqual(['one']);
    expect(ledgerMarks(`${ledger}.peek`)).toEqual(['looked']);
    await rt.shutdown();
  }, 30_000);

  it('an approved call the crash interrupted while it ran is not run a second time; the model is told', async () => {
    const { taskId, ledger, restart } = await crashed('started');
    expect(ledgerMarks(`${ledger}.started`)).toEqual(['one']);
    const { rt, model } = await restart(true);
    expect(await rt.waitForAnswer(taskId, { timeoutMs: 10_000 })).toMatchObject({ status: 'completed' });
    expect(rt.approvals()).toEqual([]);
    expect(ledgerMarks(ledger)).toEqual([]);
    const results = (model.requests[0]?.messages ?? []).filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results.at(-1)).toContain('not run again: it was approved and had started when the runtime stopped');
    await rt.shutdown();
  }, 30_000);
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatRequest, ScriptReply } from '../../src/llm/index.js';
import type { Runtime } from '../../src/runtime/index.js';
import { type Task, finalStatuses } from '../../src/task/index.js';
import { MemoryLogger, ScriptedModel, SimulatedClock } from '../../src/testing.js';
import { createRuntime } from '../../src/runtime/index.js';
import { defineTool, jsonResult } from '../../src/tools/index.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

// For random model replies (calls to a tool that always asks, one whose rule changes between starts,
// and one that never asks), policies, decisions and restarts of the runtime between a pause and
// its decision: no rejected or undecided call ever runs, every approved call runs exactly once,
// and every call that needs no approval runs exactly once. Kills (-9) at the same points are in
// approvals.crash.test.ts, each a process of its own.

const tempDir = tempDirsAfterEach('troupe-approvals-prop-');

/** Waits for `condition`, checking after each millisecond: with a data dir, what it waits for follows a commit to disk. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 30_000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`timed out waiting for ${what}`);
}
const expiryMs = 60_000;

type Kind = 'guarded' | 'audited' | 'plain';
type Decision = 'approve' | 'reject' | 'edit' | 'none';

const scenarioArb = fc.record({
  replies: fc.array(fc.array(fc.constantFrom<Kind>('guarded', 'audited', 'plain'), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 }),
  decisions: fc.array(fc.constantFrom<Decision>('approve', 'reject', 'edit', 'none'), { minLength: 6, maxLength: 6 }),
  restarts: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
  // The rule in force at the start and after each restart: whether `audited` asks for approval.
  policies: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
});

interface Run {
  readonly kind: Kind;
  readonly mark: string;
  readonly instance: number;
}

/** The three tools, each recording its runs with the runtime instance that ran it. */
function tools(runs: Run[], instance: () => number, auditedAsks: boolean) {
  const tool = (kind: Kind, needsApproval?: boolean) =>
    defineTool({
      name: kind,
      description: `${kind} tool`,
      parameters: z.object({ mark: z.string() }),
      ...(needsApproval === undefined ? {} : { needsApproval }),
      execute: ({ mark }) => {
        runs.push({ kind, mark, instance: instance() });
        return Promise.resolve(jsonResult({ done: mark }));
      },
    });
  return [tool('guarded', true), tool('audited', auditedAsks), tool('plain')];
}

/** Each reply of the scenario in turn, then an answer: read off the conversation, so a restarted turn asks for the next one. */
function replyFor(replies: readonly (readonly Kind[])[]): (request: ChatRequest) => ScriptReply {
  return (request) => {
    const start = request.messages.findLastIndex((message) => message.role === 'user');
    const made = request.messages.slice(start + 1).filter((message) => message.role === 'assistant').length;
    const calls = replies[made];
    if (calls === undefined) return { text: 'done' };
    // Ids unique in the Task, as a provider's are (a scripted model started again would number them afresh).
    return { toolCalls: calls.map((kind, i) => ({ id: `call-r${made}c${i}`, name: kind, arguments: { mark: `r${made}c${i}` } })) };
  };
}

describe('approvals (property)', () => {
  it('no rejected or undecided call runs, every approved call runs once, across restarts and changes of the rule', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ replies, decisions, restarts, policies }) => {
        const dir = await tempDir();
        const clock = new SimulatedClock();
        const runs: Run[] = [];
        let instance = 0;
        const start = (): Promise<Runtime> => {
          const reply = replyFor(replies);
          const steps = Array.from({ length: 8 }, () => (request: ChatRequest) => reply(request));
          return createRuntime({
            dataDir: dir,
            clock,
            model: new ScriptedModel(steps),
            // Tools are code, given again at each start: whether `audited` asks is the rule in force then.
            tools: tools(runs, () => instance, policies[instance] === true),
            approvalExpiryMs: expiryMs,
            logger: new MemoryLogger(),
          });
        };
        let rt = await start();
        const taskId = await rt.submit('do the work');
        const outcome = new Map<string, 'ran' | 'refused'>();
        const answered = (): Task | undefined => rt.inbox().find((task) => task.id === taskId && finalStatuses.has(task.status));
        let asked = 0;
        while (answered() === undefined) {
          await until(
            () => answered() !== undefined || (rt.agent('root')?.state === 'running.awaitingApproval' && rt.approvals().length > 0),
            'a pause or the answer',
          );
          if (answered() !== undefined) break;
          const pending = rt.approvals();
          if (restarts[asked] === true) {
            // The drain's timer is on the simulated clock: moved on (by nothing) until the shutdown is through.
            let down = false;
            void rt.shutdown({ drainTimeoutMs: 0 }).then(() => (down = true));
            await until(() => {
              clock.advance(0);
              return down;
            }, 'the shutdown');
            instance++;
            rt = await start();
            await until(() => rt.approvals().length === pending.length, 'the approvals back after the restart');
          }
          for (const approval of rt.approvals()) {
            const mark = (JSON.parse(approval.arguments) as { mark: string }).mark;
            const decision = decisions[asked++ % decisions.length] ?? 'none';
            if (decision === 'none') {
              // Every call still waiting expires, not only this one.
              for (const expired of rt.approvals()) outcome.set((JSON.parse(expired.arguments) as { mark: string }).mark, 'refused');
              clock.advance(expiryMs);
              break;
            }
            if (decision === 'edit') await rt.decide(approval.id, { action: 'edit', arguments: { mark: `${mark}-edited` } });
            else await rt.decide(approval.id, { action: decision });
            outcome.set(mark, decision === 'reject' ? 'refused' : 'ran');
          }
        }
        expect(answered()).toMatchObject({ status: 'completed' });
        await rt.shutdown();

        const ranTimes = (mark: string): number => runs.filter((run) => run.mark === mark || run.mark === `${mark}-edited`).length;
        replies.forEach((calls, r) =>
          calls.forEach((kind, c) => {
            const mark = `r${r}c${c}`;
            const decided = outcome.get(mark);
            if (decided !== undefined) expect(ranTimes(mark), `${mark} (${kind}) ${decided}`).toBe(decided === 'ran' ? 1 : 0);
            else {
              // Never asked: a call that needs no approval, run exactly once.
              expect(kind, `${mark} ran without a decision`).not.toBe('guarded');
              expect(ranTimes(mark), `${mark} (${kind})`).toBe(1);
              const run = runs.find((one) => one.mark === mark);
              if (kind === 'audited') expect(policies[run?.instance ?? 0], `${mark} ran unasked under a rule that asks`).toBe(false);
            }
          }),
        );
      }),
      { numRuns: 100, ...(process.env['FC_SEED'] === undefined ? {} : { seed: Number(process.env['FC_SEED']) }) },
    );
  }, 600_000);
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exitCodes.js';
import { call } from '../support/httpServerFixture.js';
import { HeldModel } from '../support/heldModel.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { until } from '../support/runtimeFixture.js';
import { ServeInProcess, serveOptions } from '../support/serveInProcess.js';

// Property 14 of seed 004, through `troupe serve`'s own shutdown path: a real SIGINT or SIGTERM
// sent to this process stops intake at once (503 intake_closed), lets the turns in flight and
// the queues behind them finish, answers what is left `canceled` when the drain times out, logs
// a summary, and leaves the process's signal listeners as it found them. A second signal during
// the drain asks to exit at once (130 / 143).

type Signal = 'SIGINT' | 'SIGTERM';

const endingArb = fc.oneof(
  // The test lets the held calls answer once it has seen intake refused: the drain finishes.
  fc.constant({ kind: 'drained' as const }),
  // The same, after a second signal during the drain.
  fc.record({ kind: fc.constant('second signal' as const), signal: fc.constantFrom<Signal>('SIGINT', 'SIGTERM') }),
  // The held calls never answer: the drain times out (a real timer, but nothing else can end it).
  fc.record({ kind: fc.constant('timed out' as const), drainTimeoutMs: fc.integer({ min: 0, max: 5 }) }),
);

const runArb = fc.record({
  workers: fc.integer({ min: 0, max: 2 }),
  // The agent each Task goes to: root (0) or a worker.
  tasks: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
  signal: fc.constantFrom<Signal>('SIGINT', 'SIGTERM'),
  ending: endingArb,
});

const signalExitCodes = { SIGINT: ExitCode.sigint, SIGTERM: ExitCode.sigterm } as const;

/** How many listeners each event of this process has. */
function processListeners(): Record<string, number> {
  return Object.fromEntries(process.eventNames().map((name) => [String(name), process.listenerCount(name)]));
}

/** Sends `signal` to this process, but only while more than `baseline` listeners wait for it: with none, it would end the test worker. */
function signalSelf(signal: Signal, baseline: Record<string, number>): void {
  expect(process.listenerCount(signal)).toBeGreaterThan(baseline[signal] ?? 0);
  process.kill(process.pid, signal);
}

/** The final answers the console printed (`── from → user [status] task <id>` and a line of text), by Task id. */
function consoleAnswers(stdout: string): Map<string, { status: string; text: string }> {
  const answers = new Map<string, { status: string; text: string }>();
  for (const [, status = '', taskId = '', text = ''] of stdout.matchAll(/^── \S+ → user \[(\w+)\] task (\S+)\n(.*)$/gm)) {
    answers.set(taskId, { status, text });
  }
  return answers;
}

/** Gives `agentId` a Task over HTTP, as `troupe serve`'s clients do; resolves with its id. */
async function give(url: string, agentId: string, text: string): Promise<string> {
  if (agentId === 'root') {
    const submitted = await call(url, '/api/submit', { json: { text } });
    expect(submitted.status).toBe(201);
    return String(submitted.body['taskId']);
  }
  const sent = await call(url, '/api/send', { json: { agentId, text } });
  expect(sent.status).toBe(201);
  return String(sent.body['messageId']);
}

/** Has root spawn `n` workers (its model does, with the meta-tools); resolves with their ids. */
async function spawnWorkers(serve: ServeInProcess, url: string, n: number): Promise<string[]> {
  if (n === 0) return [];
  const taskId = await give(url, 'root', `spawn ${n}`);
  expect(await serve.until(() => consoleAnswers(serve.stdout).get(taskId), 'the workers')).toEqual({ status: 'completed', text: 'spawned' });
  const agents = await call<{ agents: { id: string }[] }>(url, '/api/agents');
  return agents.body.agents.map(({ id }) => id).filter((id) => id !== 'root');
}

async function expectIntakeClosed(url: string, agentId: string): Promise<void> {
  for (const reply of [
    await call(url, '/api/submit', { json: { text: 'more work' } }),
    await call(url, '/api/send', { json: { agentId, text: 'more work' } }),
  ]) {
    expect(reply.status).toBe(503);
    expect(reply.body['error']).toMatchObject({ code: 'intake_closed' });
  }
  expect((await call(url, '/ready')).status).toBe(503);
}

describe('troupe serve shuts down gracefully on a real signal (property 14)', () => {
  it('stops intake at once, lets work in flight finish or cancels it at the deadline, logs the summary, and removes its listeners', async () => {
    // Before any run: a run that leaks a listener fails every run after it too.
    const baseline = processListeners();
    await fc.assert(
      fc.asyncProperty(runArb, async ({ workers, tasks, signal, ending }) => {
        expect(processListeners(), 'listeners left by an earlier run').toEqual(baseline);
        const model = new HeldModel();
        const timedOut = ending.kind === 'timed out';
        const serve = new ServeInProcess(serveOptions({ model, drainTimeoutMs: timedOut ? ending.drainTimeoutMs : 600_000 }));
        try {
          const url = await serve.url();
          // The listeners go in right after the API listens, with no I/O in between.
          await until(() => process.listenerCount(signal) > (baseline[signal] ?? 0), 'the signal listeners');
          const agents = ['root', ...(await spawnWorkers(serve, url, workers))];
          const targets = tasks.map((n) => agents[n % agents.length] ?? 'root');
          const sent: string[] = [];
          for (const agentId of targets) sent.push(await give(url, agentId, 'work'));
          // Each busy agent's first Task is in flight, held in its model call; the rest wait in its mailbox.
          await model.untilHolding(new Set(targets).size);

          signalSelf(signal, baseline);
          const shuttingDown = await serve.log('shutting down: no new requests or Tasks; letting turns in flight finish');
          expect(shuttingDown['signal']).toBe(signal);
          // The console's door is shut too: a line typed now is never read.
          serve.write('more work');
          // Intake is asked while the test holds the drain open: past a deadline of a few ms the server may be closed already.
          if (!timedOut) {
            await expectIntakeClosed(url, agents.at(-1) ?? 'root');
            if (ending.kind === 'second signal') {
              signalSelf(ending.signal, baseline);
              expect(await serve.until(() => serve.exitCodes[0], 'the exit')).toBe(signalExitCodes[ending.signal]);
              expect(serve.logs.find((line) => line.msg === 'second signal: exiting without waiting')?.['signal']).toBe(ending.signal);
            }
            model.release();
          }
          expect(await serve.done).toBe(ExitCode.ok);

          const summary = await serve.log('troupe serve stopped');
          expect(summary).toMatchObject({ agents: agents.length, stoppedAgents: agents.length, pendingTasks: timedOut ? sent.length : 0, drained: !timedOut });
          expect(summary['elapsedMs']).toBeGreaterThanOrEqual(0);
          const answers = consoleAnswers(serve.stdout);
          for (const taskId of sent) {
            if (timedOut) expect(answers.get(taskId)).toEqual({ status: 'canceled', text: 'canceled: receiver terminated: shutdown' });
            else expect(answers.get(taskId)).toEqual({ status: 'completed', text: `done: ${taskId}` });
          }
          // Neither acknowledged nor refused (intake_closed): not read at all.
          expect(serve.stdout).not.toMatch(/→ root {2}task|troupe: /);
          if (ending.kind !== 'second signal') expect(serve.exitCodes).toEqual([]);
          expect(processListeners()).toEqual(baseline);
        } finally {
          // A run that failed half-way must not leave a serve listening to the next run's signals.
          model.release();
          if (process.listenerCount('SIGTERM') > (baseline['SIGTERM'] ?? 0)) process.kill(process.pid, 'SIGTERM');
          await serve.done.catch(() => undefined);
        }
      }),
      loggedSeed('serve shutdown property 14'),
    );
  }, 180_000);
});

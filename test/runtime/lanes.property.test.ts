import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPrompt } from '../../src/task/index.js';
import { loggedSeed } from '../support/loggedSeed.js';
import { quietRuntime, recordBus, waitTicksTool } from '../support/runtimeFixture.js';
import { WorkerModel } from '../support/workerModel.js';

// Lanes as laws, over random interleavings of sessions: whatever order Tasks of several sessions
// arrive in, and however long each turn takes (tool rounds that yield to the event loop), two Tasks
// of one session never run at once and run in the order they arrived, no more than maxLanesPerAgent
// run at once, every Task is answered, and no model call ever sees another session's Task.

const workArb = fc.record({
  sessions: fc.integer({ min: 1, max: 4 }),
  maxLanes: fc.integer({ min: 1, max: 3 }),
  // Each Task: its session (modulo `sessions`) and how many tool rounds its turn takes.
  tasks: fc.array(fc.record({ session: fc.nat(), rounds: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 10 }),
});

describe('session lanes (properties)', () => {
  it("a session's Tasks never overlap and keep their order; at most maxLanes run; every Task is answered in its own context", async () => {
    await fc.assert(
      fc.asyncProperty(workArb, async ({ sessions, maxLanes, tasks }) => {
        const model = new WorkerModel();
        const { rt } = await quietRuntime({ model, tools: [waitTicksTool], maxLanesPerAgent: maxLanes });
        const seen = recordBus(rt);
        const sessionOf = new Map<string, string>();
        const sent: string[] = [];
        for (const { session, rounds } of tasks) {
          const sessionId = `s${session % sessions}`;
          const taskId = await rt.submit(`work ${rounds}`, { sessionId });
          sessionOf.set(taskId, sessionId);
          sent.push(taskId);
        }
        const answers = await Promise.all(sent.map((taskId) => rt.waitForAnswer(taskId, { timeoutMs: 10_000 })));
        expect(answers.map((answer) => answer.result)).toEqual(sent.map((taskId) => ({ text: `done: ${taskId}` })));

        // Each Task's turn, from its `working` status to its answer, as positions on the bus.
        const at = (taskId: string, status: string): number => seen.findIndex((task) => task.id === taskId && task.status === status);
        const turns = sent.map((taskId) => ({ taskId, session: sessionOf.get(taskId), start: at(taskId, 'working'), end: at(taskId, 'completed') }));
        for (const turn of turns) expect(turn.start).toBeGreaterThanOrEqual(0);
        for (const [index, turn] of turns.entries()) {
          const earlier = turns.slice(0, index).filter((other) => other.session === turn.session);
          // Begun only after every earlier Task of its session was answered.
          for (const other of earlier) expect(turn.start, `${turn.taskId} began before ${other.taskId} of its session ended`).toBeGreaterThan(other.end);
        }
        for (const turn of turns) {
          const running = turns.filter((other) => other.start <= turn.start && other.end > turn.start);
          expect(running.length).toBeLessThanOrEqual(maxLanes);
        }
        // Every model call's context holds only Tasks of the session of the Task it works on.
        for (const request of model.requests) {
          const sessionsSeen = new Set(
            request.messages.flatMap((message) => (message.role === 'user' ? [sessionOf.get(readPrompt(message.content)?.taskId ?? '')] : [])),
          );
          expect(sessionsSeen.size).toBe(1);
        }
        expect(rt.agent('root')).toMatchObject({ state: 'running.idle', lanes: 0, queued: 0 });
        await rt.shutdown();
      }),
      loggedSeed('lanes'),
    );
    // A hundred runtimes on a loaded 2-core machine: generous, and no wall clock decides what it sees.
  }, 120_000);
});

import { expect } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { type AgentEvent, type AgentInput, type TurnInput, agentMachine } from '../../machines/agent.machine.js';
import { systemClock } from '../../src/clock.js';
import { sequentialIds } from '../../src/ids.js';
import { type Task, createTask } from '../../src/task/index.js';
import type { Effect, Invocation } from '../support/recordingImplementations.js';
import { type ExpectedEffects, type MachineModel, type RunStep, describeMachineModel } from '../support/describeMachineModel.js';

type Snapshot = SnapshotFrom<typeof agentMachine>;

/** The domain events (the turn's reports among them) plus the settlements of the promise actors. */
type ModelEvent =
  | AgentEvent
  | { type: 'xstate.done.actor.prepare'; output: undefined }
  | { type: 'xstate.error.actor.prepare'; error: Error }
  | { type: 'xstate.done.actor.release'; output: undefined }
  | { type: 'xstate.error.actor.release'; error: Error };

const task = createTask({ from: 'user', to: 'a1', action: 'message', parameters: { text: 'hello' } }, { ids: sequentialIds(), clock: systemClock });
// maxSteps 2 makes the step limit reachable: the tool results of step 1 (the second model call) stop the turn, those
// of step 0 do not; mailboxLimit 2 the full mailbox. As after a restart, the first turn on `task` starts at step 1
// (its turn actor's input says so); later turns start afresh.
const input: AgentInput = { agentId: 'a1', roleId: 'r1', parentId: null, maxSteps: 2, mailboxLimit: 2, resume: { taskId: task.id, step: 1 } };
const { agentId } = input;

const events: readonly ModelEvent[] = [
  { type: 'task.received', task },
  { type: 'agent.drain' },
  { type: 'agent.terminate', by: 'user', reason: 'no longer needed', resumable: false },
  { type: 'agent.terminate', by: 'runtime', reason: 'shutdown', resumable: true },
  { type: 'xstate.done.actor.prepare', output: undefined },
  { type: 'xstate.error.actor.prepare', error: new Error('prepare failed') },
  { type: 'turn.tools', calls: 1 },
  { type: 'turn.answered', text: 'hi', importance: 0.7 },
  { type: 'turn.observed', step: 0 },
  { type: 'turn.observed', step: 1 },
  { type: 'turn.failed', error: new Error('model failed') },
  { type: 'xstate.done.actor.release', output: undefined },
  { type: 'xstate.error.actor.release', error: new Error('release failed') },
];

function label(event: ModelEvent): string {
  switch (event.type) {
    case 'task.received':
    case 'agent.drain':
      return event.type;
    case 'agent.terminate':
      return `${event.type}(${event.resumable ? 'resumable' : 'final'})`;
    case 'turn.tools':
    case 'turn.answered':
    case 'turn.failed':
      return event.type;
    case 'turn.observed':
      return `${event.type}(step ${event.step})`;
    case 'xstate.done.actor.prepare':
    case 'xstate.done.actor.release':
      return `${event.type.slice('xstate.done.actor.'.length)}.done`;
    case 'xstate.error.actor.prepare':
    case 'xstate.error.actor.release':
      return `${event.type.slice('xstate.error.actor.'.length)}.error`;
    default:
      return event satisfies never;
  }
}

const inTurn = (snapshot: Snapshot): boolean => snapshot.matches({ running: 'turn' });
/** Draining (intake closed by `agent.drain`) or stopping: a Task arriving now is refused, never queued. */
const intakeClosed = (snapshot: Snapshot): boolean => snapshot.context.draining || snapshot.matches('stopping');

/**
 * The documented effects. A turn ends with exactly one of answer / failTurn / stopAtStepLimit;
 * a new one starts (beginTurn, think at step 0) with the oldest queued Task whenever the agent
 * is running, out of a turn and has mail, draining or not; entering stopping cancels the current
 * and queued Tasks and releases the agent; a Task arriving while draining or stopping is refused.
 */
function effects({ prev, event, next }: { prev: Snapshot | null; event: ModelEvent | { type: 'xstate.init' }; next: Snapshot }): ExpectedEffects {
  const actions: Effect[] = [];
  const invoked: Invocation[] = [];
  if (prev === null) return { actions, invoked: [{ id: 'prepare', input: { agentId } }] };
  const { current, mailbox, maxSteps } = prev.context;
  let turnEnded = false;
  switch (event.type) {
    case 'turn.answered':
      actions.push({ type: 'answer', params: { agentId, task: current, text: event.text, importance: event.importance } });
      turnEnded = true;
      break;
    case 'turn.failed':
      actions.push({ type: 'failTurn', params: { agentId, task: current, error: event.error } });
      turnEnded = true;
      break;
    case 'turn.observed':
      if (event.step + 1 >= maxSteps) {
        actions.push({ type: 'stopAtStepLimit', params: { agentId, task: current, steps: event.step + 1 } });
        turnEnded = true;
      }
      break;
    case 'turn.tools':
      break;
    case 'xstate.error.actor.prepare':
      // A failed spawn drains: whatever queued while spawning is cancelled, then released.
      actions.push({ type: 'reportSpawnFailure', params: { agentId, error: event.error } });
      actions.push({ type: 'cancelPending', params: { agentId, tasks: mailbox, reason: 'spawn failed', resumable: false } });
      invoked.push({ id: 'release', input: { agentId, reason: 'spawn failed', resumable: false } });
      break;
    case 'agent.terminate':
      actions.push({
        type: 'cancelPending',
        params: { agentId, tasks: current === null ? mailbox : [current, ...mailbox], reason: event.reason, resumable: event.resumable },
      });
      invoked.push({ id: 'release', input: { agentId, reason: event.reason, resumable: event.resumable } });
      break;
    case 'task.received':
      if (intakeClosed(prev)) actions.push({ type: 'refuseTask', params: { agentId, task: event.task, reason: 'terminating' } });
      else if (mailbox.length >= prev.context.mailboxLimit) actions.push({ type: 'refuseTask', params: { agentId, task: event.task, reason: 'mailbox_full' } });
      break;
    case 'agent.drain':
    case 'xstate.init':
    case 'xstate.done.actor.prepare':
    case 'xstate.done.actor.release':
    case 'xstate.error.actor.release':
      break;
    default:
      event satisfies never;
  }
  const queued = event.type === 'task.received' && !intakeClosed(prev) ? [...mailbox, event.task] : mailbox;
  // One turn actor for the whole turn: invoked when a turn begins, never per step.
  if (next.matches({ running: 'turn' }) && (turnEnded || !inTurn(prev))) {
    actions.push({ type: 'beginTurn', params: { agentId, task: queued[0] } });
    // Only the first turn resumes, and only on the Task it was interrupted on.
    const resuming = prev.context.resume !== null && prev.context.resume.taskId === queued[0]?.id;
    invoked.push({ id: 'turn', input: { agentId, task: queued[0], step: resuming ? prev.context.resume?.step : 0, resuming } });
  }
  if (next.status === 'done') actions.push({ type: 'announceTerminated', params: { agentId, resumable: next.context.resumable } });
  return { actions, invoked };
}

const settles = (effect: Effect): number => {
  const params = effect.params as { task?: Task | null; tasks?: readonly Task[] };
  switch (effect.type) {
    case 'answer':
    case 'failTurn':
    case 'stopAtStepLimit':
      return params.task === null ? 0 : 1;
    case 'cancelPending':
      return params.tasks?.length ?? 0;
    case 'refuseTask':
      // Refused for a full mailbox: answered `rejected` at once (refusals while draining were never accepted).
      return (effect.params as { reason: string }).reason === 'mailbox_full' ? 1 : 0;
    default:
      return 0;
  }
};

/** A terminated agent has answered (completed, failed or canceled) every Task it accepted. */
function noTaskLost(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  const last = steps.at(-1);
  if (last?.next.status !== 'done') return;
  const accepted = steps.filter((s) => s.event.type === 'task.received' && s.prev !== null && !intakeClosed(s.prev)).length;
  const answered = steps.flatMap((s) => s.actions).reduce((sum, effect) => sum + settles(effect), 0);
  expect(answered, `the agent terminated with ${accepted - answered} accepted Task(s) never answered`).toBe(accepted);
}

/**
 * Property 8 at the machine's level: a draining agent idle with an empty mailbox has answered
 * every Task it accepted with a turn's outcome (answer, failure, step limit), none cancelled.
 */
function drainAnswersEverything(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  steps.forEach((step, index) => {
    const { context } = step.next;
    if (!(context.draining && step.next.matches({ running: 'idle' }) && context.mailbox.length === 0)) return;
    const upTo = steps.slice(0, index + 1);
    const accepted = upTo.filter((s) => s.event.type === 'task.received' && s.prev !== null && !intakeClosed(s.prev)).length;
    const effects = upTo.flatMap((s) => s.actions);
    expect(
      effects.filter((effect) => effect.type === 'cancelPending'),
      'a drained agent cancelled nothing',
    ).toEqual([]);
    expect(
      effects.reduce((sum, effect) => sum + settles(effect), 0),
      'a drained agent answered every Task it accepted',
    ).toBe(accepted);
  });
}

const model: MachineModel<Snapshot, ModelEvent, AgentInput> = {
  machine: agentMachine,
  input,
  events,
  // Mailbox length is capped so the traversal is finite; the step is bounded by maxSteps.
  project: (snapshot) => ({
    value: snapshot.value,
    status: snapshot.status,
    mailbox: Math.min(snapshot.context.mailbox.length, 2),
    current: snapshot.context.current?.id ?? null,
    startStep: snapshot.context.startStep,
    resumePending: snapshot.context.resume !== null,
    draining: snapshot.context.draining,
  }),
  label,
  implement: (harness) =>
    agentMachine.provide({
      actors: {
        prepare: harness.actor<undefined, { agentId: string }>(),
        runTurn: harness.callback<TurnInput>(),
        release: harness.actor<undefined, { agentId: string; reason: string; resumable: boolean }>(),
      },
      actions: {
        beginTurn: harness.record('beginTurn'),
        answer: harness.record('answer'),
        failTurn: harness.record('failTurn'),
        stopAtStepLimit: harness.record('stopAtStepLimit'),
        cancelPending: harness.record('cancelPending'),
        refuseTask: harness.record('refuseTask'),
        reportSpawnFailure: harness.record('reportSpawnFailure'),
        announceTerminated: harness.record('announceTerminated'),
      },
    }),
  effects,
  afterPath: (steps) => {
    noTaskLost(steps);
    drainAnswersEverything(steps);
  },
};

describeMachineModel('agent machine', model);

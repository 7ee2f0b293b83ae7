import { expect } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { type AgentEvent, type AgentInput, type TurnInput, agentMachine } from '../../machines/agent.machine.js';
import { systemClock } from '../../src/clock.js';
import { sequentialIds } from '../../src/ids.js';
import { type Task, createTask } from '../../src/task/index.js';
import type { Effect, Invocation } from '../support/recordingImplementations.js';
import { type ExpectedEffects, type MachineModel, type RunStep, describeMachineModel } from '../support/describeMachineModel.js';

type Snapshot = SnapshotFrom<typeof agentMachine>;

/** The domain events (the lanes' turn reports among them) plus the settlements of the promise actors. */
type ModelEvent =
  | AgentEvent
  | { type: 'xstate.done.actor.prepare'; output: undefined }
  | { type: 'xstate.error.actor.prepare'; error: Error }
  | { type: 'xstate.done.actor.release'; output: undefined }
  | { type: 'xstate.error.actor.release'; error: Error };

// Three sessions and two lanes: A and B run side by side (every turn report for each), C reaches the
// lane limit and waits until a lane frees (it only ever answers). maxSteps 2 makes the step limit
// reachable: the tool results of step 1 (the second model call) stop the turn, those of step 0 do not.
// mailboxLimit 1 the full mailbox. As after a restart, the first turn on A's Task starts at step 1 (its
// turn actor's input says so); later turns start afresh.
const ids = sequentialIds();
const taskOf = (sessionId: string): Task =>
  createTask({ from: 'user', to: 'a1', action: 'message', sessionId, parameters: { text: `hello from ${sessionId}` } }, { ids, clock: systemClock });
const tasks = { A: taskOf('A'), B: taskOf('B'), C: taskOf('C') };
const input: AgentInput = { agentId: 'a1', roleId: 'r1', parentId: null, maxSteps: 2, mailboxLimit: 1, maxLanes: 2, resume: [{ taskId: tasks.A.id, step: 1 }] };
const { agentId, maxLanes } = input;

const notice = { id: 'ap-000000000000000000000001', tool: 'send_email', toolCallId: 'call-1', digest: 'f'.repeat(64) };

const turnReports = (sessionId: string): ModelEvent[] => [
  { type: 'turn.tools', sessionId, calls: 1 },
  { type: 'turn.answered', sessionId, text: `hi ${sessionId}`, importance: 0.7 },
  { type: 'turn.observed', sessionId, step: 0 },
  { type: 'turn.observed', sessionId, step: 1 },
  { type: 'turn.failed', sessionId, error: new Error(`model failed in ${sessionId}`) },
];

const events: readonly ModelEvent[] = [
  ...Object.values(tasks).map((task): ModelEvent => ({ type: 'task.received', task })),
  { type: 'agent.drain' },
  // Asked for by a parent's turn in session P: the notice that it terminated joins that session.
  { type: 'agent.terminate', by: 'parent', reason: 'no longer needed', resumable: false, about: { id: 'parent-turn', sessionId: 'P' } },
  { type: 'agent.terminate', by: 'runtime', reason: 'shutdown', resumable: true, about: null },
  // Only B's Task is canceled: in its lane or queued, without multiplying every session's paths.
  { type: 'task.cancel', taskId: tasks.B.id, by: 'user', reason: 'not needed' },
  { type: 'xstate.done.actor.prepare', output: undefined },
  { type: 'xstate.error.actor.prepare', error: new Error('prepare failed') },
  ...turnReports('A'),
  ...turnReports('B'),
  { type: 'turn.answered', sessionId: 'C', text: 'hi C' },
  // Only A's turn pauses for a person's approval: the pause state without multiplying every session's paths.
  { type: 'turn.awaiting', sessionId: 'A', approvals: [notice] },
  { type: 'turn.resumed', sessionId: 'A' },
  // Only B's turn hands off: one more way for a lane to end, without multiplying every session's paths.
  { type: 'turn.handedOff', sessionId: 'B', handoff: { to: 'a2', target: 'helper', reason: '', message: '', conversation: [] } },
  { type: 'xstate.done.actor.release', output: undefined },
  { type: 'xstate.error.actor.release', error: new Error('release failed') },
];

function label(event: ModelEvent): string {
  switch (event.type) {
    case 'task.received':
      return `${event.type}(${event.task.sessionId})`;
    case 'agent.drain':
      return event.type;
    case 'agent.terminate':
      return `${event.type}(${event.resumable ? 'resumable' : 'final'})`;
    case 'task.cancel':
      return `${event.type}(B)`;
    case 'turn.tools':
    case 'turn.awaiting':
    case 'turn.resumed':
    case 'turn.answered':
    case 'turn.failed':
    case 'turn.handedOff':
      return `${event.type}(${event.sessionId})`;
    case 'turn.observed':
      return `${event.type}(${event.sessionId}, step ${event.step})`;
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

/** A drain asked for (draining, or spawning to drain once ready): the agent takes no new work but finishes what it has. */
const drainAsked = (snapshot: Snapshot): boolean => snapshot.matches('draining') || snapshot.matches({ spawning: 'thenDrain' });
/** Draining or stopping: a Task arriving now is refused, never queued. */
const intakeClosed = (snapshot: Snapshot): boolean => drainAsked(snapshot) || snapshot.matches('stopping');
const laneTask = (snapshot: Snapshot, sessionId: string): Task | undefined => snapshot.context.lanes.find((lane) => lane.sessionId === sessionId)?.task;

/**
 * The documented lane rule, written out again rather than imported: with `busy` sessions in lanes,
 * the Tasks of `queue` that start now are the oldest of each session without a lane, in queue
 * order, while fewer than maxLanes run.
 */
function starting(queue: readonly Task[], busy: readonly string[]): Task[] {
  const taken = new Set(busy);
  const started: Task[] = [];
  for (const task of queue) {
    if (taken.size >= maxLanes) break;
    if (taken.has(task.sessionId)) continue;
    taken.add(task.sessionId);
    started.push(task);
  }
  return started;
}

/** A pause reported from an acting (or already paused) lane asks the person; a decision resumes only a paused lane. */
function pauseEffects(prev: Snapshot, event: Extract<ModelEvent, { type: 'turn.awaiting' | 'turn.resumed' }>): Effect[] {
  const phase = prev.context.lanes.find((lane) => lane.sessionId === event.sessionId)?.phase;
  const task = laneTask(prev, event.sessionId);
  if (event.type === 'turn.awaiting')
    return phase === 'acting' || phase === 'awaiting' ? [{ type: 'awaitApproval', params: { agentId, task, approvals: event.approvals } }] : [];
  return phase === 'awaiting' ? [{ type: 'resumeAfterApproval', params: { agentId, task } }] : [];
}

/** A held Task (in a lane, or queued) is answered canceled (into `actions`), then a lane freed takes the queue (`begin`) once the agent runs. */
function cancelEffects(prev: Snapshot, event: Extract<ModelEvent, { type: 'task.cancel' }>, actions: Effect[], begin: (task: Task) => void): void {
  const { lanes, mailbox } = prev.context;
  const held = [...lanes.map((lane) => lane.task), ...mailbox].find((task) => task.id === event.taskId);
  if (held === undefined || prev.matches('stopping') || prev.status === 'done') return;
  actions.push({ type: 'cancelTask', params: { agentId, task: held, by: event.by, reason: event.reason } });
  if (prev.matches('spawning')) return;
  // Only the Task held leaves: its lane, else its place in the queue.
  const inLane = lanes.some((lane) => lane.task === held);
  starting(
    inLane ? mailbox : mailbox.filter((task) => task !== held),
    lanes.filter((lane) => lane.task !== held).map((lane) => lane.sessionId),
  ).forEach(begin);
}

/**
 * The documented effects. A lane's turn ends with exactly one of answer / failTurn / stopAtStepLimit,
 * and the lanes freed are taken at once by queued Tasks (beginTurn, a turn actor `turn:<session>`).
 * A received Task starts a lane at once when its session has none and one is free, else waits.
 * Entering stopping cancels every lane's Task and every queued one and releases the agent; a Task
 * arriving while draining or stopping is refused. Only the first turn on A's Task resumes, at step 1.
 */
function effects({ prev, event, next }: { prev: Snapshot | null; event: ModelEvent | { type: 'xstate.init' }; next: Snapshot }): ExpectedEffects {
  const actions: Effect[] = [];
  const invoked: Invocation[] = [];
  if (prev === null) return { actions, invoked: [{ id: 'prepare', input: { agentId } }] };
  const { lanes, mailbox, maxSteps, resume } = prev.context;
  const begin = (task: Task): void => {
    const at = resume.find((point) => point.taskId === task.id);
    actions.push({ type: 'beginTurn', params: { agentId, task } });
    invoked.push({ id: `turn:${task.sessionId}`, input: { agentId, task, step: at?.step ?? 0, resuming: at !== undefined } });
  };
  // A lane's turn ended: its Task gets the outcome, then what was queued takes the free lanes.
  const endLane = (sessionId: string, outcome: Effect): void => {
    actions.push(outcome);
    starting(
      mailbox,
      lanes.filter((lane) => lane.sessionId !== sessionId).map((lane) => lane.sessionId),
    ).forEach(begin);
  };
  switch (event.type) {
    case 'turn.answered':
      endLane(event.sessionId, { type: 'answer', params: { agentId, task: laneTask(prev, event.sessionId), text: event.text, importance: event.importance } });
      break;
    case 'turn.failed':
      endLane(event.sessionId, { type: 'failTurn', params: { agentId, task: laneTask(prev, event.sessionId), error: event.error } });
      break;
    case 'turn.handedOff':
      endLane(event.sessionId, { type: 'handOff', params: { agentId, task: laneTask(prev, event.sessionId), handoff: event.handoff } });
      break;
    case 'turn.observed':
      if (event.step + 1 >= maxSteps) {
        endLane(event.sessionId, { type: 'stopAtStepLimit', params: { agentId, task: laneTask(prev, event.sessionId), steps: event.step + 1 } });
      }
      break;
    case 'turn.tools':
      break;
    case 'turn.awaiting':
    case 'turn.resumed':
      actions.push(...pauseEffects(prev, event));
      break;
    case 'xstate.done.actor.prepare':
      starting(mailbox, []).forEach(begin);
      break;
    case 'xstate.error.actor.prepare':
      // A failed spawn goes through stopping: whatever queued while spawning is cancelled, then released.
      actions.push({ type: 'reportSpawnFailure', params: { agentId, error: event.error } });
      actions.push({ type: 'cancelPending', params: { agentId, tasks: mailbox, reason: 'spawn failed', resumable: false } });
      invoked.push({ id: 'release', input: { agentId, reason: 'spawn failed', resumable: false } });
      break;
    case 'agent.terminate':
      actions.push({
        type: 'cancelPending',
        params: { agentId, tasks: [...lanes.map((lane) => lane.task), ...mailbox], reason: event.reason, resumable: event.resumable },
      });
      invoked.push({ id: 'release', input: { agentId, reason: event.reason, resumable: event.resumable } });
      break;
    case 'task.cancel':
      cancelEffects(prev, event, actions, begin);
      break;
    case 'task.received':
      if (intakeClosed(prev)) actions.push({ type: 'refuseTask', params: { agentId, task: event.task, reason: 'terminating' } });
      else if (mailbox.length >= prev.context.mailboxLimit) actions.push({ type: 'refuseTask', params: { agentId, task: event.task, reason: 'mailbox_full' } });
      else if (prev.matches('running'))
        starting(
          [event.task],
          lanes.map((lane) => lane.sessionId),
        ).forEach(begin);
      break;
    case 'agent.drain':
    case 'xstate.init':
    case 'xstate.done.actor.release':
    case 'xstate.error.actor.release':
      break;
    default:
      event satisfies never;
  }
  if (next.status === 'done') {
    // The Task it was stopped for: the final terminate's, none for a shutdown or a failed spawn.
    const about = next.context.resumable || next.context.stoppedFor === null ? null : { id: 'parent-turn', sessionId: 'P' };
    actions.push({ type: 'announceTerminated', params: { agentId, resumable: next.context.resumable, about } });
  }
  return { actions, invoked };
}

const settles = (effect: Effect): number => {
  const params = effect.params as { tasks?: readonly Task[]; reason?: string };
  switch (effect.type) {
    case 'answer':
    case 'failTurn':
    case 'stopAtStepLimit':
    case 'handOff':
    case 'cancelTask':
      return 1;
    case 'cancelPending':
      return params.tasks?.length ?? 0;
    case 'refuseTask':
      // Refused for a full mailbox: answered `rejected` at once (refusals while draining were never accepted).
      return params.reason === 'mailbox_full' ? 1 : 0;
    default:
      return 0;
  }
};

const acceptedUpTo = (steps: readonly RunStep<Snapshot, ModelEvent>[]): number =>
  steps.filter((s) => s.event.type === 'task.received' && s.prev !== null && !intakeClosed(s.prev)).length;
const settledUpTo = (steps: readonly RunStep<Snapshot, ModelEvent>[]): number =>
  steps.flatMap((s) => s.actions).reduce((sum, effect) => sum + settles(effect), 0);

/** A terminated agent has answered (completed, failed or canceled) every Task it accepted. */
function noTaskLost(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  if (steps.at(-1)?.next.status !== 'done') return;
  const accepted = acceptedUpTo(steps);
  expect(settledUpTo(steps), `the agent terminated with accepted Task(s) never answered`).toBe(accepted);
}

/**
 * Property 8 at the machine's level: a draining agent idle with an empty mailbox has answered
 * every Task it accepted with a turn's outcome (answer, failure, step limit), none cancelled.
 */
function drainAnswersEverything(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  steps.forEach((step, index) => {
    const { context } = step.next;
    if (!(step.next.matches({ draining: 'idle' }) && context.mailbox.length === 0)) return;
    const upTo = steps.slice(0, index + 1);
    expect(
      upTo.flatMap((s) => s.actions).filter((effect) => effect.type === 'cancelPending'),
      'a drained agent cancelled nothing',
    ).toEqual([]);
    expect(settledUpTo(upTo), 'a drained agent answered every Task it accepted').toBe(acceptedUpTo(upTo));
  });
}

/**
 * Draining is a state of the chart: from `agent.drain` until it is told to stop, the agent is in
 * `draining` (or waits in `spawning.thenDrain` to get there), never back in `running`, while its
 * lanes and queue still run (their answers are the effects above).
 */
function drainingIsAState(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  let asked = false;
  for (const { event, prev, next } of steps) {
    if (event.type === 'agent.drain' && prev !== null && (prev.matches('running') || prev.matches('spawning'))) asked = true;
    if (next.matches('stopping') || next.status === 'done') asked = false;
    expect(drainAsked(next), `after ${event.type}: ${JSON.stringify(next.value)}`).toBe(asked);
    if (event.type === 'xstate.done.actor.prepare' && prev !== null && drainAsked(prev)) expect(next.matches('draining')).toBe(true);
  }
}

/**
 * Running or draining, the shared region reads `turn` exactly while some lane works, and
 * `awaitingApproval` exactly while there are lanes and every one is paused for a person.
 */
function turnWhileLanesRun(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  for (const { next } of steps) {
    const { lanes } = next.context;
    const paused = lanes.length > 0 && lanes.every((lane) => lane.phase === 'awaiting');
    for (const phase of ['running', 'draining'] as const) {
      if (!next.matches(phase)) continue;
      expect(next.matches({ [phase]: 'turn' }), JSON.stringify(next.value)).toBe(lanes.length > 0 && !paused);
      expect(next.matches({ [phase]: 'awaitingApproval' }), JSON.stringify(next.value)).toBe(paused);
    }
  }
}

/** A lane paused for a person takes no turn report but a decision's (or its end): it never observes, thinks or answers meanwhile. */
function pausedLaneWaits(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  for (const { event, prev, next } of steps) {
    if (prev === null || !('sessionId' in event) || event.type === 'turn.awaiting' || event.type === 'turn.resumed') continue;
    if (prev.context.lanes.find((lane) => lane.sessionId === event.sessionId)?.phase !== 'awaiting') continue;
    if (event.type === 'turn.failed' || event.type === 'turn.handedOff') continue;
    expect(next.context.lanes.find((lane) => lane.sessionId === event.sessionId)?.phase, `${event.type} moved a paused lane`).toBe('awaiting');
  }
}

/**
 * Lanes at every step: one per session at most (two Tasks of one session never run at once), never
 * more than maxLanes, each with its running turn actor named after its session and no other.
 */
function oneLanePerSession(steps: readonly RunStep<Snapshot, ModelEvent>[]): void {
  for (const { next } of steps) {
    const sessions = next.context.lanes.map((lane) => lane.sessionId);
    expect(new Set(sessions).size, `two lanes of one session: ${sessions.join(', ')}`).toBe(sessions.length);
    expect(sessions.length).toBeLessThanOrEqual(maxLanes);
    const turnActors = Object.keys(next.children).filter((id) => id.startsWith('turn:'));
    expect(turnActors.sort()).toEqual(sessions.map((sessionId) => `turn:${sessionId}`).sort());
  }
}

const model: MachineModel<Snapshot, ModelEvent, AgentInput> = {
  machine: agentMachine,
  input,
  events,
  // The mailbox is bounded by mailboxLimit and the lanes by maxLanes, so the traversal is finite. The
  // lanes are a set (their order only orders a cancellation, which the oracle reads off the real actor).
  project: (snapshot) => ({
    value: snapshot.value,
    status: snapshot.status,
    mailbox: snapshot.context.mailbox.map((task) => task.sessionId),
    lanes: snapshot.context.lanes.map((lane) => `${lane.sessionId}:${lane.phase}`).sort(),
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
        awaitApproval: harness.record('awaitApproval'),
        resumeAfterApproval: harness.record('resumeAfterApproval'),
        failTurn: harness.record('failTurn'),
        handOff: harness.record('handOff'),
        stopAtStepLimit: harness.record('stopAtStepLimit'),
        cancelPending: harness.record('cancelPending'),
        cancelTask: harness.record('cancelTask'),
        refuseTask: harness.record('refuseTask'),
        reportSpawnFailure: harness.record('reportSpawnFailure'),
        announceTerminated: harness.record('announceTerminated'),
      },
    }),
  effects,
  afterPath: (steps) => {
    noTaskLost(steps);
    drainAnswersEverything(steps);
    drainingIsAState(steps);
    turnWhileLanesRun(steps);
    pausedLaneWaits(steps);
    oneLanePerSession(steps);
  },
};

describeMachineModel('agent machine', model);

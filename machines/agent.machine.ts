import { type AnyEventObject, assign, enqueueActions, fromCallback, fromPromise, setup, stateIn } from 'xstate';
import type { Task, TaskUsage } from '../src/task/schema.js';
import { type Lane, type LaneStart, type ResumeAt, laneFree, laneId, laneOf, laneStarts, queuedStarts, withPhase } from './agentLanes.js';
import type { TaskRef } from '../src/task/schema.js';
import type { HandoffDecision } from '../src/task/handoff.js';
import type { ApprovalNotice } from '../src/task/approval.js';
import type { AgentContext, AgentEvent, AgentInput, TurnInput } from './agentMachineTypes.js';
import { type Refusal, refuseWork, overMailboxLimit, takeWork, heldTask, cancelQueued, cancelHeld, laneReports, lanesRegion } from './agentTransitions.js';

export type { ResumeAt } from './agentLanes.js';
export type { AgentContext, AgentEvent, AgentInput, ThinkOutput, TurnEvent, TurnInput } from './agentMachineTypes.js';

function missing(name: string): never {
  throw new Error(`agent machine: the '${name}' actor is supplied by the runtime (createRuntime)`);
}

const newLanes = (starts: readonly LaneStart[]): Lane[] => starts.map(({ task }) => ({ sessionId: task.sessionId, task, phase: 'thinking' }));

/** The agent machine's types, actors, actions and guards; the lanes' starting actions are added to it below. */
const agentSetup = setup({
  types: {
    input: {} as AgentInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  actors: {
    prepare: fromPromise<undefined, { agentId: string }>(() => missing('prepare')),
    // One actor runs the whole ReAct loop of a lane's turn and reports each phase change as a
    // TurnEvent; the machine decides (step limit, termination) and stops it by ending the lane.
    // One actor per turn rather than one per model call and tool step keeps a step cheap.
    runTurn: fromCallback<AnyEventObject, TurnInput>(() => missing('runTurn')),
    release: fromPromise<undefined, { agentId: string; reason: string; resumable: boolean }>(() => missing('release')),
  },
  actions: {
    enqueue: assign({
      mailbox: ({ context, event }) => (event.type === 'task.received' ? [...context.mailbox, event.task] : context.mailbox),
    }),
    // The lane's turn is over: its actor is stopped (a turn never reports after that) and the lane freed.
    stopLane: enqueueActions(({ event, enqueue }) => {
      if ('sessionId' in event) enqueue.stopChild(laneId(event.sessionId));
    }),
    freeLane: assign({
      lanes: ({ context, event }) => ('sessionId' in event ? context.lanes.filter((lane) => lane.sessionId !== event.sessionId) : context.lanes),
    }),
    // A named assign rather than `enqueue.assign`: XState warns when `assign()` is called while another actor's action runs.
    takeLanes: assign((_, params: { mailbox: readonly Task[]; lanes: readonly Lane[]; resume: readonly ResumeAt[] }) => params),
    markActing: assign({ lanes: ({ context, event }) => ('sessionId' in event ? withPhase(context.lanes, event.sessionId, 'acting') : context.lanes) }),
    markAwaiting: assign({ lanes: ({ context, event }) => ('sessionId' in event ? withPhase(context.lanes, event.sessionId, 'awaiting') : context.lanes) }),
    markThinking: assign({ lanes: ({ context, event }) => ('sessionId' in event ? withPhase(context.lanes, event.sessionId, 'thinking') : context.lanes) }),
    stopLanes: enqueueActions(({ context, enqueue }) => {
      for (const lane of context.lanes) enqueue.stopChild(laneId(lane.sessionId));
    }),
    clearWork: assign({ mailbox: [], lanes: [] }),
    // The canceled Task's lane actor is stopped (its turn is aborted), then the Task leaves the lanes or the mailbox.
    stopCanceledLane: enqueueActions(({ context, event, enqueue }) => {
      const lane = event.type === 'task.cancel' ? context.lanes.find((held) => held.task.id === event.taskId) : undefined;
      if (lane !== undefined) enqueue.stopChild(laneId(lane.sessionId));
    }),
    dropCanceled: assign(({ context, event }) => {
      const held = heldTask(context, event);
      const lanes = context.lanes.filter((lane) => lane.task !== held);
      return lanes.length < context.lanes.length ? { lanes } : { mailbox: context.mailbox.filter((task) => task !== held) };
    }),
    noteStop: assign({
      resumable: ({ event }) => event.type === 'agent.terminate' && event.resumable,
      stoppedFor: ({ event }) => (event.type === 'agent.terminate' ? event.about : null),
    }),
    // Implemented by the runtime; declared here so the editor shows where effects happen.
    beginTurn: (_, _params: { agentId: string; task: Task }) => undefined,
    answer: (_, _params: { agentId: string; task: Task; text: string; importance: number | undefined; usage: TaskUsage | undefined }) => undefined,
    awaitApproval: (_, _params: { agentId: string; task: Task; approvals: readonly ApprovalNotice[] }) => undefined,
    resumeAfterApproval: (_, _params: { agentId: string; task: Task }) => undefined,
    failTurn: (_, _params: { agentId: string; task: Task; error: unknown }) => undefined,
    handOff: (_, _params: { agentId: string; task: Task; handoff: HandoffDecision }) => undefined,
    stopAtStepLimit: (_, _params: { agentId: string; task: Task; steps: number }) => undefined,
    cancelPending: (_, _params: { agentId: string; tasks: readonly Task[]; reason: string; resumable: boolean }) => undefined,
    cancelTask: (_, _params: { agentId: string; task: Task; by: string; reason: string }) => undefined,
    refuseTask: (_, _params: { agentId: string; task: Task; reason: Refusal }) => undefined,
    reportSpawnFailure: (_, _params: { agentId: string; error: unknown }) => undefined,
    announceTerminated: (_, _params: { agentId: string; resumable: boolean; about: TaskRef | null }) => undefined,
  },
  guards: {
    mailboxFull: ({ context, event }) => context.mailbox.length >= context.mailboxLimit && !(event.type === 'task.received' && event.accepted === true),
    laneFreeForTask: ({ context, event }) => event.type === 'task.received' && laneFree(context, event.task),
    // A turn event counts only from a lane in the phase it leaves; none comes from a stopped lane.
    laneThinking: ({ context, event }) => 'sessionId' in event && laneOf(context.lanes, event.sessionId)?.phase === 'thinking',
    laneActing: ({ context, event }) => 'sessionId' in event && laneOf(context.lanes, event.sessionId)?.phase === 'acting',
    laneAwaiting: ({ context, event }) => 'sessionId' in event && laneOf(context.lanes, event.sessionId)?.phase === 'awaiting',
    laneActingOrAwaiting: ({ context, event }) => {
      const phase = 'sessionId' in event ? laneOf(context.lanes, event.sessionId)?.phase : undefined;
      return phase === 'acting' || phase === 'awaiting';
    },
    laneOpen: ({ context, event }) => 'sessionId' in event && laneOf(context.lanes, event.sessionId) !== undefined,
    laneStepLimit: ({ context, event }) =>
      event.type === 'turn.observed' && laneOf(context.lanes, event.sessionId)?.phase === 'acting' && event.step + 1 >= context.maxSteps,
    drainAsked: stateIn({ spawning: 'thenDrain' }),
    holdsTask: ({ context, event }) => heldTask(context, event) !== undefined,
    hasLanes: ({ context }) => context.lanes.length > 0,
    noLanes: ({ context }) => context.lanes.length === 0,
    // Both stop at the first lane that works, which is nearly always the first.
    allAwaiting: ({ context }) => context.lanes.every((lane) => lane.phase === 'awaiting'),
    someWorking: ({ context }) => context.lanes.some((lane) => lane.phase !== 'awaiting'),
  },
});

/** What an action that starts lanes is given to enqueue with, typed by the setup (so it may name beginTurn). */
type LaneEnqueue = Parameters<Parameters<typeof agentSetup.enqueueActions>[0]>[0]['enqueue'];

/**
 * Starts a lane for each of `tasks` (resumed where a restart interrupted it): its turn actor,
 * named after the session, and its Task's `working` status; `mailbox` is what stays queued.
 */
function openLanes(enqueue: LaneEnqueue, context: AgentContext, tasks: readonly Task[], mailbox: readonly Task[]): void {
  const { starts, resume } = laneStarts(context.resume, tasks);
  enqueue({ type: 'takeLanes', params: { mailbox, lanes: [...context.lanes, ...newLanes(starts)], resume } });
  const { agentId } = context;
  for (const { task, step, resuming } of starts) {
    enqueue({ type: 'beginTurn', params: { agentId, task } });
    enqueue.spawnChild('runTurn', { id: laneId(task.sessionId), input: { agentId, task, step, resuming } });
  }
}

/**
 * An agent: spawning → running (idle ⇄ turn ⇄ awaitingApproval) → draining (the same) → stopping → terminated.
 * While running, the agent serves several sessions at once: each session's turn runs in a lane of
 * its own (a turn actor `turn:<sessionId>`, its phase, thinking or acting, in `lanes`), up to
 * `maxLanes`; Tasks of a session with a lane, or past the limit, wait in the mailbox in arrival
 * order. `turn` while any lane runs. `agent.drain` closes intake: in `draining` new Tasks are
 * refused while the lanes in progress and the queued Tasks still run to completion (the turn
 * actors are spawned children, so they outlive the move from `running`); drained, it idles until
 * told to stop. A drain asked for while spawning waits in `spawning.thenDrain` for the agent to be
 * ready. `agent.terminate` ends it from any state through `stopping`.
 * Side effects are named and supplied by the runtime with `.provide()`.
 */
export const agentMachine = agentSetup
  .extend({
    actions: {
      // A received Task whose session has no lane, with room for one, starts at once: nothing older of its session waits.
      startReceived: agentSetup.enqueueActions(({ context, event, enqueue }) => {
        if (event.type === 'task.received') openLanes(enqueue, context, [event.task], context.mailbox);
      }),
      // The oldest queued Task of each session without a lane starts, while there is room.
      startQueued: agentSetup.enqueueActions(({ context, enqueue }) => {
        const plan = queuedStarts(context);
        if (plan !== null) openLanes(enqueue, context, plan.starts, plan.mailbox);
      }),
    },
  })
  .createMachine({
    id: 'agent',
    context: ({ input }) => ({
      ...input,
      mailbox: [],
      lanes: [],
      resume: input.resume ?? [],
      resumable: false,
      stoppedFor: null,
    }),
    initial: 'spawning',
    states: {
      spawning: {
        invoke: {
          id: 'prepare',
          src: 'prepare',
          input: ({ context }) => ({ agentId: context.agentId }),
          onDone: [{ guard: 'drainAsked', target: 'draining' }, { target: 'running' }],
          // Through stopping, so Tasks that arrived while spawning are answered, not dropped.
          onError: {
            target: 'stopping',
            actions: { type: 'reportSpawnFailure', params: ({ context, event }) => ({ agentId: context.agentId, error: event.error }) },
          },
        },
        // No lane runs yet: a canceled Task only leaves the mailbox.
        on: { 'agent.terminate': { target: 'stopping' }, 'task.cancel': cancelQueued },
        // Where the agent goes once ready: Tasks queue until then, and a drain asked for meanwhile starts then, so they still get turns.
        initial: 'thenRun',
        states: {
          thenRun: {
            on: {
              'task.received': [overMailboxLimit, { actions: 'enqueue' }],
              'agent.drain': { target: 'thenDrain' },
            },
          },
          thenDrain: { on: { 'task.received': refuseWork } },
        },
      },
      running: {
        entry: 'startQueued',
        on: {
          'task.received': takeWork,
          'agent.drain': { target: 'draining' },
          'agent.terminate': { target: 'stopping' },
          'task.cancel': cancelHeld,
          ...laneReports,
        },
        ...lanesRegion,
      },
      draining: {
        // From spawning, what queued meanwhile starts its lanes here; from running, nothing queued could start.
        entry: 'startQueued',
        on: {
          'task.received': refuseWork,
          'agent.terminate': { target: 'stopping' },
          'task.cancel': cancelHeld,
          ...laneReports,
        },
        ...lanesRegion,
      },
      stopping: {
        // No lane gets another model call; every lane's Task and every queued one is answered `canceled` (unless resumable).
        entry: [
          'noteStop',
          {
            type: 'cancelPending',
            params: ({ context, event }) => ({
              agentId: context.agentId,
              tasks: [...context.lanes.map((lane) => lane.task), ...context.mailbox],
              reason: event.type === 'agent.terminate' ? event.reason : 'spawn failed',
              resumable: context.resumable,
            }),
          },
          'stopLanes',
          'clearWork',
        ],
        invoke: {
          id: 'release',
          src: 'release',
          input: ({ context, event }) => ({
            agentId: context.agentId,
            reason: event.type === 'agent.terminate' ? event.reason : 'spawn failed',
            resumable: context.resumable,
          }),
          onDone: { target: 'terminated' },
          onError: { target: 'terminated' },
        },
        on: { 'task.received': refuseWork },
      },
      terminated: {
        type: 'final',
        entry: {
          type: 'announceTerminated',
          params: ({ context }) => ({ agentId: context.agentId, resumable: context.resumable, about: context.stoppedFor }),
        },
      },
    },
  });

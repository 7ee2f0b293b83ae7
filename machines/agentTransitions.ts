import type { Task } from '../src/task/schema.js';
import { type Lane, laneOf } from './agentLanes.js';
import type { AgentContext, AgentEvent, TurnEvent } from './agentMachineTypes.js';

// The agent machine's transitions that its states share (intake, cancellation, a lane's turn
// reports, the lanes region), kept apart from the machine's setup in agent.machine.ts. They are
// marked internal: the machine's own declared type carries what a user sees, and their inferred
// declarations would spell out Task's metadata in a form stricter compilers refuse.

export type Refusal = 'terminating' | 'mailbox_full';
const refuse =
  (reason: Refusal) =>
  ({ context, event }: { context: AgentContext; event: { task: Task } }) => ({ agentId: context.agentId, task: event.task, reason });

/** While draining or stopping, intake is closed: every new Task is refused. @internal */
export const refuseWork = { actions: { type: 'refuseTask', params: refuse('terminating') } } as const;

/** A Task past the mailbox limit is refused (`mailbox_full`), while spawning as while running. @internal */
export const overMailboxLimit = { guard: 'mailboxFull', actions: { type: 'refuseTask', params: refuse('mailbox_full') } } as const;
/** While running, a Task within the mailbox limit starts a lane when it may, else waits. @internal */
export const takeWork = [overMailboxLimit, { guard: 'laneFreeForTask', actions: 'startReceived' }, { actions: 'enqueue' }] as const;

/** A lane's turn ended (answered, failed, stopped at the step limit): the lane is freed and the queue may take it. */
const laneOver = ['stopLane', 'freeLane', 'startQueued'] as const;

/** The Task `task.cancel` names, in a lane or queued; undefined when the agent does not hold it. @internal */
export const heldTask = (context: AgentContext, event: AgentEvent): Task | undefined =>
  event.type !== 'task.cancel'
    ? undefined
    : (context.lanes.find((lane) => lane.task.id === event.taskId)?.task ?? context.mailbox.find((task) => task.id === event.taskId));

/** A Task the agent holds is canceled: answered `canceled`, its lane stopped (or it leaves the mailbox). @internal */
export const cancelQueued = {
  guard: 'holdsTask',
  actions: [
    {
      type: 'cancelTask',
      params: ({ context, event }: { context: AgentContext; event: AgentEvent }) => ({
        agentId: context.agentId,
        task: heldTask(context, event) as Task,
        by: event.type === 'task.cancel' ? event.by : '',
        reason: event.type === 'task.cancel' ? event.reason : '',
      }),
    },
    'stopCanceledLane',
    'dropCanceled',
  ],
} as const;

/** As `cancelQueued`, and a lane freed takes the next queued Task. @internal */
export const cancelHeld = { guard: 'holdsTask', actions: [...cancelQueued.actions, 'startQueued'] } as const;

/** The lane a turn event names (its guard made sure there is one). */
const laneTask = (context: AgentContext, event: TurnEvent): Task => (laneOf(context.lanes, event.sessionId) as Lane).task;

/** The tool results of a lane's last allowed step are in: its Task fails with `step_limit` and the lane ends. */
const stepLimit = {
  guard: 'laneStepLimit',
  actions: [
    {
      type: 'stopAtStepLimit',
      params: ({ context, event }: { context: AgentContext; event: Extract<TurnEvent, { type: 'turn.observed' }> }) => ({
        agentId: context.agentId,
        task: laneTask(context, event),
        steps: event.step + 1,
      }),
    },
    ...laneOver,
  ],
} as const;

/**
 * A lane's turn reports, taken alike while running and while draining: a drain lets every turn in
 * progress finish, and each lane freed takes the next queued Task of a session.
 * @internal
 */
export const laneReports = {
  'turn.tools': { guard: 'laneThinking', actions: 'markActing' },
  // A person is asked: the lane pauses (its Task input-required, naming the calls) until every call waiting is decided.
  'turn.awaiting': {
    guard: 'laneActingOrAwaiting',
    actions: [
      'markAwaiting',
      {
        type: 'awaitApproval',
        params: ({ context, event }: { context: AgentContext; event: Extract<TurnEvent, { type: 'turn.awaiting' }> }) => ({
          agentId: context.agentId,
          task: laneTask(context, event),
          approvals: event.approvals,
        }),
      },
    ],
  },
  'turn.resumed': {
    guard: 'laneAwaiting',
    actions: [
      'markActing',
      {
        type: 'resumeAfterApproval',
        params: ({ context, event }: { context: AgentContext; event: Extract<TurnEvent, { type: 'turn.resumed' }> }) => ({
          agentId: context.agentId,
          task: laneTask(context, event),
        }),
      },
    ],
  },
  'turn.observed': [stepLimit, { guard: 'laneActing', actions: 'markThinking' }],
  'turn.answered': {
    guard: 'laneThinking',
    actions: [
      {
        type: 'answer',
        params: ({ context, event }: { context: AgentContext; event: Extract<TurnEvent, { type: 'turn.answered' }> }) => ({
          agentId: context.agentId,
          task: laneTask(context, event),
          text: event.text,
          importance: event.importance,
          usage: event.usage,
        }),
      },
      ...laneOver,
    ],
  },
  'turn.handedOff': {
    guard: 'laneOpen',
    actions: [
      {
        type: 'handOff',
        params: ({ context, event }: { context: AgentContext; event: Extract<TurnEvent, { type: 'turn.handedOff' }> }) => ({
          agentId: context.agentId,
          task: laneTask(context, event),
          handoff: event.handoff,
        }),
      },
      ...laneOver,
    ],
  },
  'turn.failed': {
    guard: 'laneOpen',
    actions: [
      {
        type: 'failTurn',
        params: ({ context, event }: { context: AgentContext; event: Extract<TurnEvent, { type: 'turn.failed' }> }) => ({
          agentId: context.agentId,
          task: laneTask(context, event),
          error: event.error,
        }),
      },
      ...laneOver,
    ],
  },
} as const;

/**
 * Whether any lane has a turn in progress, the region `running` and `draining` share: `turn` while
 * one works, `awaitingApproval` while every lane is paused for a person's decision, `idle` while
 * there is none. Which lanes think and which act is their phase in the context, not a state: a
 * state per phase would take eventless transitions over every lane on every step.
 * @internal
 */
export const lanesRegion = {
  initial: 'idle',
  states: {
    idle: { always: { guard: 'hasLanes', target: 'turn' } },
    turn: {
      always: [
        { guard: 'noLanes', target: 'idle' },
        { guard: 'allAwaiting', target: 'awaitingApproval' },
      ],
    },
    awaitingApproval: {
      always: [
        { guard: 'noLanes', target: 'idle' },
        { guard: 'someWorking', target: 'turn' },
      ],
    },
  },
} as const;

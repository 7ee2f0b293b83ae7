import { type AnyEventObject, assign, fromCallback, fromPromise, setup } from 'xstate';
import type { Task } from '../src/task/schema.js';

/** What an agent starts with; the organisation tree is data (`parentId`), not XState's actor tree. */
export interface AgentInput {
  readonly agentId: string;
  readonly roleId: string;
  readonly parentId: string | null;
  /** Model calls allowed in one turn before it is stopped. */
  readonly maxSteps: number;
  /** Tasks that may wait in the mailbox; more are refused (`mailbox_full`) so a flood cannot stall the agent. */
  readonly mailboxLimit: number;
  /**
   * After a restart: the Task whose turn was interrupted and the step it had reached, so that
   * turn picks up where it stopped instead of starting over.
   */
  readonly resume?: ResumeAt | null;
}

export interface ResumeAt {
  readonly taskId: string;
  readonly step: number;
}

export interface AgentContext extends AgentInput {
  /** Tasks waiting for a turn, oldest first. */
  readonly mailbox: readonly Task[];
  /** The Task the current turn works on. */
  readonly current: Task | null;
  /**
   * The step the current turn starts at: 0, or the step an interrupted turn had reached. The
   * turn counts its steps itself and reports each in `turn.observed`; a count kept here too would
   * cost an assign (a snapshot copy) on every tool step.
   */
  readonly startStep: number;
  /** Still to be resumed: cleared when the next turn starts. */
  readonly resume: ResumeAt | null;
  /** Whether the current turn continues an interrupted one. */
  readonly resuming: boolean;
  /**
   * Set when told to stop: the agent is only stopped for a shutdown of a runtime whose
   * organisation is kept, so its work is handed back on restart instead of being cancelled.
   */
  readonly resumable: boolean;
  /**
   * Set by `agent.drain`: intake is closed (new Tasks are refused) but the turn in progress and
   * the queued Tasks still run. A flag rather than a state so the turn in progress is not
   * interrupted: leaving `running.turn` would stop it.
   */
  readonly draining: boolean;
}

/** What one model call decided: call tools, or answer (the runtime's turn loop uses it). */
export type ThinkOutput =
  | { readonly kind: 'tools'; readonly calls: number }
  /** `importance` (0..1) comes from an `<imp:X/>` tag the model wrote, already stripped from `text`. */
  | { readonly kind: 'answer'; readonly text: string; readonly importance?: number };

export interface TurnInput {
  readonly agentId: string;
  readonly task: Task;
  /** Model calls already made in this turn (0 when it starts). */
  readonly step: number;
  /** The turn continues one interrupted by a restart: its prompt and steps so far are in the conversation. */
  readonly resuming: boolean;
}

/** What the running turn reports back to the machine, one event per phase change. */
export type TurnEvent =
  /** The model asked for tools: thinking → acting. */
  | { type: 'turn.tools'; calls: number }
  /** The tool results of `step` (0 for the turn's first model call) are in the conversation: acting → thinking (or the step limit). */
  | { type: 'turn.observed'; step: number }
  /** The model answered: the turn is over. */
  | { type: 'turn.answered'; text: string; importance?: number }
  /** A model call or tool step failed: the turn is over, the agent lives on. */
  | { type: 'turn.failed'; error: unknown };

export type AgentEvent =
  /**
   * `accepted`: the Task was already accepted for this agent (the user's, checked against the
   * mailbox limit at intake, or handed back after a restart), so it is queued even past the limit.
   */
  | { type: 'task.received'; task: Task; accepted?: boolean }
  /** Close intake and work through what is queued; the society sends `agent.terminate` once drained (or at the deadline). */
  | { type: 'agent.drain' }
  /** Stop now: what is left is cancelled (or kept for a restart when `resumable`) and the agent is released. */
  | { type: 'agent.terminate'; by: string; reason: string; resumable: boolean }
  | TurnEvent;

function missing(name: string): never {
  throw new Error(`agent machine: the '${name}' actor is supplied by the runtime (createRuntime)`);
}

/** Work is queued while spawning and running, up to the mailbox limit; once draining or stopping it is refused. */
const takeWork = [
  {
    guard: 'intakeClosed',
    actions: {
      type: 'refuseTask',
      params: ({ context, event }: { context: AgentContext; event: { task: Task } }) => ({
        agentId: context.agentId,
        task: event.task,
        reason: 'terminating' as const,
      }),
    },
  },
  {
    guard: 'mailboxFull',
    actions: {
      type: 'refuseTask',
      params: ({ context, event }: { context: AgentContext; event: { task: Task } }) => ({
        agentId: context.agentId,
        task: event.task,
        reason: 'mailbox_full' as const,
      }),
    },
  },
  { actions: 'enqueue' },
] as const;

/**
 * An agent: spawning → running (idle ⇄ turn: thinking ⇄ acting) → stopping → terminated. Draining
 * is running with intake closed (`agent.drain`): the agent works through its mailbox, then idles
 * until told to stop.
 * Side effects are named and supplied by the runtime with `.provide()`.
 */
export const agentMachine = setup({
  types: {
    input: {} as AgentInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  actors: {
    prepare: fromPromise<undefined, { agentId: string }>(() => missing('prepare')),
    // One actor runs the whole ReAct loop of a turn and reports each phase change as a TurnEvent;
    // the machine decides (step limit, termination) and stops it by leaving `turn`. One actor per
    // turn rather than one per model call and tool step keeps a step cheap.
    runTurn: fromCallback<AnyEventObject, TurnInput>(() => missing('runTurn')),
    release: fromPromise<undefined, { agentId: string; reason: string; resumable: boolean }>(() => missing('release')),
  },
  actions: {
    enqueue: assign({
      mailbox: ({ context, event }) => (event.type === 'task.received' ? [...context.mailbox, event.task] : context.mailbox),
    }),
    takeNextTask: assign(({ context }) => {
      const next = context.mailbox[0] ?? null;
      const resumeAt = next !== null && context.resume?.taskId === next.id ? context.resume : null;
      return { current: next, mailbox: context.mailbox.slice(1), startStep: resumeAt?.step ?? 0, resume: null, resuming: resumeAt !== null };
    }),
    clearCurrent: assign({ current: null, startStep: 0, resuming: false }),
    clearMailbox: assign({ mailbox: [], current: null, startStep: 0, resuming: false }),
    markResumable: assign({ resumable: ({ event }) => event.type === 'agent.terminate' && event.resumable }),
    closeIntake: assign({ draining: true }),
    // Implemented by the runtime; declared here so the editor shows where effects happen.
    beginTurn: (_, _params: { agentId: string; task: Task | null }) => undefined,
    answer: (_, _params: { agentId: string; task: Task | null; text: string; importance: number | undefined }) => undefined,
    failTurn: (_, _params: { agentId: string; task: Task | null; error: unknown }) => undefined,
    stopAtStepLimit: (_, _params: { agentId: string; task: Task | null; steps: number }) => undefined,
    cancelPending: (_, _params: { agentId: string; tasks: readonly Task[]; reason: string; resumable: boolean }) => undefined,
    refuseTask: (_, _params: { agentId: string; task: Task; reason: 'terminating' | 'mailbox_full' }) => undefined,
    reportSpawnFailure: (_, _params: { agentId: string; error: unknown }) => undefined,
    announceTerminated: (_, _params: { agentId: string; resumable: boolean }) => undefined,
  },
  guards: {
    hasMail: ({ context }) => context.mailbox.length > 0,
    stepLimitReached: ({ context, event }) => event.type === 'turn.observed' && event.step + 1 >= context.maxSteps,
    mailboxFull: ({ context, event }) => context.mailbox.length >= context.mailboxLimit && !(event.type === 'task.received' && event.accepted === true),
    intakeClosed: ({ context }) => context.draining,
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    ...input,
    mailbox: [],
    current: null,
    startStep: 0,
    resume: input.resume ?? null,
    resuming: false,
    resumable: false,
    draining: false,
  }),
  initial: 'spawning',
  states: {
    spawning: {
      invoke: {
        id: 'prepare',
        src: 'prepare',
        input: ({ context }) => ({ agentId: context.agentId }),
        onDone: { target: 'running' },
        // Through stopping, so Tasks that arrived while spawning are answered, not dropped.
        onError: {
          target: 'stopping',
          actions: { type: 'reportSpawnFailure', params: ({ context, event }) => ({ agentId: context.agentId, error: event.error }) },
        },
      },
      // A drain asked for while spawning starts once the agent runs: its queued Tasks still get turns.
      on: { 'task.received': takeWork, 'agent.drain': { actions: 'closeIntake' }, 'agent.terminate': { target: 'stopping' } },
    },
    running: {
      initial: 'idle',
      on: { 'task.received': takeWork, 'agent.drain': { actions: 'closeIntake' }, 'agent.terminate': { target: 'stopping' } },
      states: {
        idle: {
          always: {
            guard: 'hasMail',
            target: 'turn',
            actions: ['takeNextTask', { type: 'beginTurn', params: ({ context }) => ({ agentId: context.agentId, task: context.current }) }],
          },
        },
        turn: {
          invoke: {
            id: 'turn',
            src: 'runTurn',
            input: ({ context }) => ({ agentId: context.agentId, task: context.current as Task, step: context.startStep, resuming: context.resuming }),
          },
          on: {
            'turn.failed': {
              target: 'idle',
              actions: [
                { type: 'failTurn', params: ({ context, event }) => ({ agentId: context.agentId, task: context.current, error: event.error }) },
                'clearCurrent',
              ],
            },
          },
          initial: 'thinking',
          states: {
            thinking: {
              on: {
                'turn.tools': { target: 'acting' },
                'turn.answered': {
                  target: '#agent.running.idle',
                  actions: [
                    {
                      type: 'answer',
                      params: ({ context, event }) => ({ agentId: context.agentId, task: context.current, text: event.text, importance: event.importance }),
                    },
                    'clearCurrent',
                  ],
                },
              },
            },
            acting: {
              on: {
                'turn.observed': [
                  {
                    guard: 'stepLimitReached',
                    target: '#agent.running.idle',
                    actions: [
                      { type: 'stopAtStepLimit', params: ({ context, event }) => ({ agentId: context.agentId, task: context.current, steps: event.step + 1 }) },
                      'clearCurrent',
                    ],
                  },
                  { target: 'thinking' },
                ],
              },
            },
          },
        },
      },
    },
    stopping: {
      // Nothing queued gets a model call any more; each is answered `canceled` (unless resumable).
      entry: [
        'markResumable',
        {
          type: 'cancelPending',
          params: ({ context, event }) => ({
            agentId: context.agentId,
            tasks: context.current === null ? context.mailbox : [context.current, ...context.mailbox],
            reason: event.type === 'agent.terminate' ? event.reason : 'spawn failed',
            resumable: context.resumable,
          }),
        },
        'clearMailbox',
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
      on: {
        'task.received': {
          actions: { type: 'refuseTask', params: ({ context, event }) => ({ agentId: context.agentId, task: event.task, reason: 'terminating' as const }) },
        },
      },
    },
    terminated: {
      type: 'final',
      entry: { type: 'announceTerminated', params: ({ context }) => ({ agentId: context.agentId, resumable: context.resumable }) },
    },
  },
});

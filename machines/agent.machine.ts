import { assign, fromPromise, setup } from 'xstate';
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
}

export interface AgentContext extends AgentInput {
  /** Tasks waiting for a turn, oldest first. */
  readonly mailbox: readonly Task[];
  /** The Task the current turn works on. */
  readonly current: Task | null;
  /** Model calls made so far in the current turn. */
  readonly step: number;
}

/** What one model call decided: call tools, or answer. */
export type ThinkOutput =
  | { readonly kind: 'tools'; readonly calls: number }
  /** `importance` (0..1) comes from an `<imp:X/>` tag the model wrote, already stripped from `text`. */
  | { readonly kind: 'answer'; readonly text: string; readonly importance?: number };

export interface TurnInput {
  readonly agentId: string;
  readonly task: Task;
  readonly step: number;
}

export type AgentEvent =
  | { type: 'task.received'; task: Task }
  | { type: 'agent.terminate'; by: string; reason: string };

function missing(name: string): never {
  throw new Error(`agent machine: the '${name}' actor is supplied by the runtime (createRuntime)`);
}

/**
 * An agent: spawning → running (idle ⇄ thinking ⇄ acting) → draining → terminated.
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
    think: fromPromise<ThinkOutput, TurnInput>(() => missing('think')),
    act: fromPromise<undefined, TurnInput>(() => missing('act')),
    release: fromPromise<undefined, { agentId: string; reason: string }>(() => missing('release')),
  },
  actions: {
    enqueue: assign({
      mailbox: ({ context, event }) => (event.type === 'task.received' ? [...context.mailbox, event.task] : context.mailbox),
    }),
    takeNextTask: assign({
      current: ({ context }) => context.mailbox[0] ?? null,
      mailbox: ({ context }) => context.mailbox.slice(1),
      step: 0,
    }),
    countStep: assign({ step: ({ context }) => context.step + 1 }),
    clearCurrent: assign({ current: null, step: 0 }),
    clearMailbox: assign({ mailbox: [], current: null, step: 0 }),
    // Implemented by the runtime; declared here so the editor shows where effects happen.
    beginTurn: (_, _params: { agentId: string; task: Task | null }) => undefined,
    answer: (_, _params: { agentId: string; task: Task | null; text: string; importance: number | undefined }) => undefined,
    failTurn: (_, _params: { agentId: string; task: Task | null; error: unknown }) => undefined,
    stopAtStepLimit: (_, _params: { agentId: string; task: Task | null; steps: number }) => undefined,
    cancelPending: (_, _params: { agentId: string; tasks: readonly Task[]; reason: string }) => undefined,
    refuseTask: (_, _params: { agentId: string; task: Task; reason: 'terminating' | 'mailbox_full' }) => undefined,
    reportSpawnFailure: (_, _params: { agentId: string; error: unknown }) => undefined,
    announceTerminated: (_, _params: { agentId: string }) => undefined,
  },
  guards: {
    hasMail: ({ context }) => context.mailbox.length > 0,
    wantsTools: (_, params: { output: ThinkOutput }) => params.output.kind === 'tools',
    stepLimitReached: ({ context }) => context.step + 1 >= context.maxSteps,
    mailboxFull: ({ context }) => context.mailbox.length >= context.mailboxLimit,
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({ ...input, mailbox: [], current: null, step: 0 }),
  initial: 'spawning',
  states: {
    spawning: {
      invoke: {
        id: 'prepare',
        src: 'prepare',
        input: ({ context }) => ({ agentId: context.agentId }),
        onDone: { target: 'running' },
        // Through draining, so Tasks that arrived while spawning are answered, not dropped.
        onError: {
          target: 'draining',
          actions: { type: 'reportSpawnFailure', params: ({ context, event }) => ({ agentId: context.agentId, error: event.error }) },
        },
      },
      on: {
        'task.received': [
          { guard: 'mailboxFull', actions: { type: 'refuseTask', params: ({ context, event }) => ({ agentId: context.agentId, task: event.task, reason: 'mailbox_full' as const }) } },
          { actions: 'enqueue' },
        ],
        'agent.terminate': { target: 'draining' },
      },
    },
    running: {
      initial: 'idle',
      on: {
        'task.received': [
          { guard: 'mailboxFull', actions: { type: 'refuseTask', params: ({ context, event }) => ({ agentId: context.agentId, task: event.task, reason: 'mailbox_full' as const }) } },
          { actions: 'enqueue' },
        ],
        'agent.terminate': { target: 'draining' },
      },
      states: {
        idle: {
          always: {
            guard: 'hasMail',
            target: 'thinking',
            actions: [
              'takeNextTask',
              { type: 'beginTurn', params: ({ context }) => ({ agentId: context.agentId, task: context.current }) },
            ],
          },
        },
        thinking: {
          invoke: {
            id: 'think',
            src: 'think',
            input: ({ context }) => ({ agentId: context.agentId, task: context.current as Task, step: context.step }),
            onDone: [
              { guard: { type: 'wantsTools', params: ({ event }) => ({ output: event.output }) }, target: 'acting' },
              {
                target: 'idle',
                actions: [
                  {
                    type: 'answer',
                    params: ({ context, event }) => ({
                      agentId: context.agentId,
                      task: context.current,
                      text: event.output.kind === 'answer' ? event.output.text : '',
                      importance: event.output.kind === 'answer' ? event.output.importance : undefined,
                    }),
                  },
                  'clearCurrent',
                ],
              },
            ],
            onError: {
              target: 'idle',
              actions: [
                { type: 'failTurn', params: ({ context, event }) => ({ agentId: context.agentId, task: context.current, error: event.error }) },
                'clearCurrent',
              ],
            },
          },
        },
        acting: {
          invoke: {
            id: 'act',
            src: 'act',
            input: ({ context }) => ({ agentId: context.agentId, task: context.current as Task, step: context.step }),
            onDone: [
              {
                guard: 'stepLimitReached',
                target: 'idle',
                actions: [
                  { type: 'stopAtStepLimit', params: ({ context }) => ({ agentId: context.agentId, task: context.current, steps: context.step + 1 }) },
                  'clearCurrent',
                ],
              },
              { target: 'thinking', actions: 'countStep' },
            ],
            onError: {
              target: 'idle',
              actions: [
                { type: 'failTurn', params: ({ context, event }) => ({ agentId: context.agentId, task: context.current, error: event.error }) },
                'clearCurrent',
              ],
            },
          },
        },
      },
    },
    draining: {
      // Intake is closed: nothing queued gets a model call; each is answered `canceled`.
      entry: [
        {
          type: 'cancelPending',
          params: ({ context, event }) => ({
            agentId: context.agentId,
            tasks: context.current === null ? context.mailbox : [context.current, ...context.mailbox],
            reason: event.type === 'agent.terminate' ? event.reason : 'spawn failed',
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
        }),
        onDone: { target: 'terminated' },
        onError: { target: 'terminated' },
      },
      on: {
        'task.received': { actions: { type: 'refuseTask', params: ({ context, event }) => ({ agentId: context.agentId, task: event.task, reason: 'terminating' as const }) } },
      },
    },
    terminated: {
      type: 'final',
      entry: { type: 'announceTerminated', params: ({ context }) => ({ agentId: context.agentId }) },
    },
  },
});

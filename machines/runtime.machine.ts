import { assign, fromPromise, setup } from 'xstate';

/** What graceful shutdown found when it finished. */
export interface ShutdownSummary {
  readonly agents: number;
  readonly terminatedAgents: number;
  readonly pendingTasks: number;
  readonly drained: boolean;
  readonly elapsedMs: number;
}

export type RuntimeEvent = { type: 'runtime.started' } | { type: 'runtime.failed'; error: unknown } | { type: 'runtime.shutdown'; drainTimeoutMs: number };

function missing(name: string): never {
  throw new Error(`runtime machine: the '${name}' actor is supplied by createRuntime`);
}

/**
 * The supervisor's lifecycle: intake is open only in `running`; `draining` lets work in
 * flight finish (up to a timeout), stops every agent and summarises.
 */
export const runtimeMachine = setup({
  types: {
    events: {} as RuntimeEvent,
    context: {} as { readonly summary: ShutdownSummary | null },
    /** The shutdown summary; null when the runtime failed before it ran. */
    output: {} as ShutdownSummary | null,
  },
  actors: {
    drainSociety: fromPromise<ShutdownSummary, { drainTimeoutMs: number }>(() => missing('drainSociety')),
  },
  actions: {
    stopIntake: () => undefined,
    reportSummary: (_, _params: { summary: ShutdownSummary }) => undefined,
    reportFailure: (_, _params: { error: unknown }) => undefined,
  },
}).createMachine({
  id: 'runtime',
  context: { summary: null },
  initial: 'spawning',
  output: ({ context }) => context.summary,
  states: {
    spawning: {
      on: {
        'runtime.started': { target: 'running' },
        'runtime.failed': {
          target: 'terminated',
          actions: { type: 'reportFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    running: {
      on: { 'runtime.shutdown': { target: 'draining' } },
    },
    draining: {
      entry: 'stopIntake',
      invoke: {
        id: 'drainSociety',
        src: 'drainSociety',
        input: ({ event }) => ({ drainTimeoutMs: event.type === 'runtime.shutdown' ? event.drainTimeoutMs : 30_000 }),
        onDone: {
          target: 'terminated',
          actions: [assign({ summary: ({ event }) => event.output }), { type: 'reportSummary', params: ({ event }) => ({ summary: event.output }) }],
        },
        onError: {
          target: 'terminated',
          actions: { type: 'reportFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    terminated: { type: 'final' },
  },
});

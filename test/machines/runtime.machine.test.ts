import type { SnapshotFrom } from 'xstate';
import { type RuntimeEvent, type ShutdownSummary, runtimeMachine } from '../../machines/runtime.machine.js';
import type { Effect, Invocation } from '../support/recordingImplementations.js';
import { type ExpectedEffects, type MachineModel, describeMachineModel } from '../support/describeMachineModel.js';

type Snapshot = SnapshotFrom<typeof runtimeMachine>;

/** The domain events plus the settlements of the `drainSociety` invocation. */
type ModelEvent =
  RuntimeEvent | { type: 'xstate.done.actor.drainSociety'; output: ShutdownSummary } | { type: 'xstate.error.actor.drainSociety'; error: Error };

const summary: ShutdownSummary = { agents: 3, terminatedAgents: 3, pendingTasks: 0, drained: true, elapsedMs: 42 };

const events: readonly ModelEvent[] = [
  { type: 'runtime.started' },
  { type: 'runtime.failed', error: new Error('boot failed') },
  { type: 'runtime.shutdown', drainTimeoutMs: 1234 },
  { type: 'xstate.done.actor.drainSociety', output: summary },
  { type: 'xstate.error.actor.drainSociety', error: new Error('drain failed') },
];

function label(event: ModelEvent): string {
  switch (event.type) {
    case 'runtime.started':
    case 'runtime.failed':
    case 'runtime.shutdown':
      return event.type;
    case 'xstate.done.actor.drainSociety':
      return 'drainSociety.done';
    case 'xstate.error.actor.drainSociety':
      return 'drainSociety.error';
    default:
      return event satisfies never;
  }
}

/** Intake stops on entering draining, which drains the society; the outcome is reported either way. */
function effects({ event }: { event: ModelEvent | { type: 'xstate.init' } }): ExpectedEffects {
  const actions: Effect[] = [];
  const invoked: Invocation[] = [];
  switch (event.type) {
    case 'runtime.failed':
      actions.push({ type: 'reportFailure', params: { error: event.error } });
      break;
    case 'runtime.shutdown':
      actions.push({ type: 'stopIntake', params: undefined });
      invoked.push({ id: 'drainSociety', input: { drainTimeoutMs: event.drainTimeoutMs } });
      break;
    case 'xstate.done.actor.drainSociety':
      actions.push({ type: 'reportSummary', params: { summary: event.output } });
      break;
    case 'xstate.error.actor.drainSociety':
      actions.push({ type: 'reportFailure', params: { error: event.error } });
      break;
    case 'xstate.init':
    case 'runtime.started':
      break;
    default:
      event satisfies never;
  }
  return { actions, invoked };
}

const model: MachineModel<Snapshot, ModelEvent, undefined> = {
  machine: runtimeMachine,
  input: undefined,
  events,
  project: (snapshot) => ({ value: snapshot.value, status: snapshot.status }),
  label,
  implement: (harness) =>
    runtimeMachine.provide({
      actors: { drainSociety: harness.actor<ShutdownSummary, { drainTimeoutMs: number }>() },
      actions: {
        stopIntake: harness.record('stopIntake'),
        reportSummary: harness.record('reportSummary'),
        reportFailure: harness.record('reportFailure'),
      },
    }),
  effects,
};

describeMachineModel('runtime machine', model);

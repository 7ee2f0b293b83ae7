import type { SnapshotFrom } from 'xstate';
import { type UserEndpointEvent, userEndpointMachine } from '../../machines/userEndpoint.machine.js';
import { systemClock } from '../../src/clock.js';
import { sequentialIds } from '../../src/ids.js';
import { createTask } from '../../src/task/index.js';
import type { Effect } from '../support/recordingImplementations.js';
import { type ExpectedEffects, type MachineModel, describeMachineModel } from '../support/describeMachineModel.js';

type Snapshot = SnapshotFrom<typeof userEndpointMachine>;

const deps = { ids: sequentialIds(), clock: systemClock };
const toAgent = createTask({ from: 'user', to: 'a1', action: 'message', parameters: { text: 'hello' } }, deps);
const toSelf = createTask({ from: 'user', to: 'user', action: 'message', parameters: { text: 'me?' } }, deps);
const answer = createTask({ from: 'a1', to: 'user', action: 'message', status: 'completed', parameters: { text: 'hi' } }, deps);

const events: readonly UserEndpointEvent[] = [
  { type: 'endpoint.open' },
  { type: 'user.input', task: toAgent },
  { type: 'user.input', task: toSelf },
  { type: 'task.received', task: answer },
  { type: 'endpoint.close' },
  { type: 'endpoint.closed' },
];

function label(event: UserEndpointEvent): string {
  switch (event.type) {
    case 'user.input':
      return `user.input(to ${event.task.to})`;
    case 'endpoint.open':
    case 'task.received':
    case 'endpoint.close':
    case 'endpoint.closed':
      return event.type;
    default:
      return event satisfies never;
  }
}

/** The documented behaviour: forward input while running unless it is addressed to `user`, ignore it otherwise, always deliver answers. */
function effects({ prev, event }: { prev: Snapshot | null; event: UserEndpointEvent | { type: 'xstate.init' } }): ExpectedEffects {
  const actions: Effect[] = [];
  switch (event.type) {
    case 'user.input':
      // Refused input (not running, or to `user`) has no transition at all: nothing is forwarded.
      if (prev?.matches('running') === true && event.task.to !== 'user') actions.push({ type: 'forwardInput', params: { task: event.task } });
      break;
    case 'task.received':
      actions.push({ type: 'deliverToUser', params: { task: event.task } });
      break;
    case 'xstate.init':
    case 'endpoint.open':
    case 'endpoint.close':
    case 'endpoint.closed':
      break;
    default:
      event satisfies never;
  }
  return { actions, invoked: [] };
}

const model: MachineModel<Snapshot, UserEndpointEvent, undefined> = {
  machine: userEndpointMachine,
  input: undefined,
  events,
  project: (snapshot) => ({ value: snapshot.value, status: snapshot.status }),
  label,
  implement: (harness) =>
    userEndpointMachine.provide({
      actions: {
        forwardInput: harness.record('forwardInput'),
        deliverToUser: harness.record('deliverToUser'),
      },
    }),
  effects,
};

describeMachineModel('userEndpoint machine', model);

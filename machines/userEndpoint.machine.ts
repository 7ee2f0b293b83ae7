import { setup } from 'xstate';
import type { Task } from '../src/task/schema.js';

export type UserEndpointEvent =
  | { type: 'endpoint.open' }
  /** The human said something, already made into a Task addressed to an agent. */
  | { type: 'user.input'; task: Task }
  /** A Task an agent addressed to `user`. */
  | { type: 'task.received'; task: Task }
  | { type: 'endpoint.close' }
  | { type: 'endpoint.closed' };

/** Answers are delivered in every state but the final one, so they reach the user until the very end. */
const deliver = { actions: { type: 'deliverToUser', params: ({ event }: { event: { task: Task } }) => ({ task: event.task }) } } as const;

/**
 * The human's door, id `user`: forwards what the user says, and hands every Task addressed to
 * `user` to the inbox and every output handler. Input is taken only while running, and never
 * addressed to `user` itself: a state with no transition for it refuses it (`snapshot.can`
 * says so before it is sent). During draining answers are still delivered, so replies to work
 * in flight reach the user during shutdown.
 */
export const userEndpointMachine = setup({
  types: {
    events: {} as UserEndpointEvent,
  },
  actions: {
    forwardInput: (_, _params: { task: Task }) => undefined,
    deliverToUser: (_, _params: { task: Task }) => undefined,
  },
  guards: {
    notToUser: (_, params: { task: Task }) => params.task.to !== 'user',
  },
}).createMachine({
  id: 'userEndpoint',
  initial: 'spawning',
  states: {
    spawning: {
      on: {
        'endpoint.open': { target: 'running' },
        'task.received': deliver,
      },
    },
    running: {
      on: {
        'user.input': {
          guard: { type: 'notToUser', params: ({ event }) => ({ task: event.task }) },
          actions: { type: 'forwardInput', params: ({ event }) => ({ task: event.task }) },
        },
        'task.received': deliver,
        'endpoint.close': { target: 'draining' },
      },
    },
    draining: {
      on: {
        'task.received': deliver,
        'endpoint.closed': { target: 'terminated' },
      },
    },
    terminated: { type: 'final' },
  },
});

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

/**
 * The human's door, id `user`: forwards what the user says, and hands every Task addressed to
 * `user` to the inbox and every output handler. During draining it refuses new input but
 * still delivers answers, so replies to work in flight reach the user during shutdown.
 */
export const userEndpointMachine = setup({
  types: {
    events: {} as UserEndpointEvent,
  },
  actions: {
    forwardInput: (_, _params: { task: Task }) => undefined,
    refuseInput: (_, _params: { task: Task; reason: string }) => undefined,
    deliverToUser: (_, _params: { task: Task }) => undefined,
  },
  guards: {
    addressedToUser: (_, params: { task: Task }) => params.task.to === 'user',
  },
}).createMachine({
  id: 'userEndpoint',
  initial: 'spawning',
  states: {
    spawning: {
      on: {
        'endpoint.open': { target: 'running' },
        'user.input': {
          actions: { type: 'refuseInput', params: ({ event }) => ({ task: event.task, reason: 'not open yet' }) },
        },
        'task.received': { actions: { type: 'deliverToUser', params: ({ event }) => ({ task: event.task }) } },
      },
    },
    running: {
      on: {
        'user.input': [
          {
            guard: { type: 'addressedToUser', params: ({ event }) => ({ task: event.task }) },
            actions: { type: 'refuseInput', params: ({ event }) => ({ task: event.task, reason: 'the user cannot message itself' }) },
          },
          { actions: { type: 'forwardInput', params: ({ event }) => ({ task: event.task }) } },
        ],
        'task.received': { actions: { type: 'deliverToUser', params: ({ event }) => ({ task: event.task }) } },
        'endpoint.close': { target: 'draining' },
      },
    },
    draining: {
      on: {
        'user.input': {
          actions: { type: 'refuseInput', params: ({ event }) => ({ task: event.task, reason: 'shutting down' }) },
        },
        'task.received': { actions: { type: 'deliverToUser', params: ({ event }) => ({ task: event.task }) } },
        'endpoint.closed': { target: 'terminated' },
      },
    },
    terminated: { type: 'final' },
  },
});

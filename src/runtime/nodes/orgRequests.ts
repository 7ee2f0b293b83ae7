import type { Subscription } from 'rxjs';
import { type EventBus, ownerAgentId } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import { describeError, errorCodeOf } from '../../errors.js';
import type { IdGenerator } from '../../ids.js';
import { type JsonValue, type Task, createTask, parseOrThrow, replyTo } from '../../task/index.js';
import type { Society } from '../society/society.js';
import {
  OrgActions,
  OrgCreateRoleSchema,
  OrgRouteSchema,
  OrgSpawnSchema,
  OrgTerminateSchema,
  PlacementActions,
  everyNode,
} from '../society/remote/nodeProtocol.js';

/**
 * The owner's side of the nodes' org requests: an agent hosted on a node spawns, terminates and
 * creates roles by asking the owner, which alone changes (and records) the organisation, under
 * the same rules as for its own agents: the requester is the parent, the terminator must be the
 * parent. Each request is answered `completed` with its result or `failed` with the coded refusal.
 */
export function serveOrgRequests(bus: EventBus, society: Society, clock: Clock): Subscription {
  return bus.serve(ownerAgentId, async (task) => {
    if (task.status !== 'submitted') return undefined;
    const handle = handlers[task.action];
    if (handle === undefined) return undefined;
    try {
      return replyTo(task, { status: 'completed', result: await handle(society, task) }, clock);
    } catch (error) {
      return replyTo(task, { status: 'failed', error: { code: errorCodeOf(error), message: describeError(error) } }, clock);
    }
  });
}

/** Tells every node that this owner process has started (`nodes.reset`): see `NodeHost`. */
export function announceOwnerStart(bus: EventBus, ids: IdGenerator, clock: Clock): void {
  bus.publish(createTask({ from: ownerAgentId, to: everyNode, action: PlacementActions.reset, parameters: {} }, { ids, clock }));
}

type Handler = (society: Society, task: Task) => Promise<JsonValue>;

const handlers: Partial<Record<string, Handler>> = {
  [OrgActions.spawn]: async (society, task) => {
    const { role, about, call } = parseOrThrow(OrgSpawnSchema, task.parameters, 'parameters');
    return { ...(await society.spawn({ role, parent: task.from, ...(about === null ? {} : { parentTask: about }), ...(call === undefined ? {} : { call }) })) };
  },
  [OrgActions.terminate]: async (society, task) => {
    const { agentId, reason, mode, about } = parseOrThrow(OrgTerminateSchema, task.parameters, 'parameters');
    const ended = await society.terminate({ agentId, by: task.from, reason, mode, parentTask: about ?? null });
    return { agentId, terminated: true, mode: ended.mode };
  },
  [OrgActions.route]: async (society, task) => {
    const { request, about, call } = parseOrThrow(OrgRouteSchema, task.parameters, 'parameters');
    const routed = await society.routeWork({ from: task.from, request, parentTask: about, ...(call === undefined ? {} : { call }) });
    return { ...routed };
  },
  [OrgActions.createRole]: async (society, task) => {
    const { name, prompt, description, handoffs } = parseOrThrow(OrgCreateRoleSchema, task.parameters, 'parameters');
    const optional = { ...(description === undefined ? {} : { description }), ...(handoffs === undefined ? {} : { handoffs }) };
    return { ...(await society.createRole({ name, prompt, ...optional, createdBy: task.from })) };
  },
};

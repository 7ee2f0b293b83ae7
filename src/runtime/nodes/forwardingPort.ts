import { type EventBus, ownerAgentId } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import { RequestTimeoutError, TroupeError } from '../../errors.js';
import type { IdGenerator } from '../../ids.js';
import { type JsonValue, type Task, type TerminationMode, TerminationModeSchema, createTask, refTo } from '../../task/index.js';
import type {
  CompressibleConversation,
  FactSearchRequest,
  FoundFact,
  GraphAccess,
  GraphOperation,
  RememberRequest,
  RememberedFact,
  RoleRequest,
  RoutedWork,
  SocietyPort,
  SpawnCallRef,
  WorkRequest,
} from '../../tools/index.js';
import type { Society } from '../society/society.js';
import { OrgActions, RoutedWorkSchema } from '../society/remote/nodeProtocol.js';

/**
 * The society port of the agents a node hosts. What changes the organisation (spawn, terminate,
 * create a role) is asked of the owner, as a request Task from the agent, and waits for its
 * answer; the rest (its own conversation, memory, plans) stays on the node. A node knows only the
 * agents it hosts: work for any other goes out on the bus, and the owner answers it `failed` at
 * once when that agent is not live.
 */
export class ForwardingPort implements SocietyPort {
  constructor(
    private readonly local: Society,
    private readonly requestTimeoutMs: number,
  ) {}

  get bus(): EventBus {
    return this.local.bus;
  }
  get ids(): IdGenerator {
    return this.local.ids;
  }
  get clock(): Clock {
    return this.local.clock;
  }

  async createRole(input: RoleRequest): Promise<{ roleId: string; name: string }> {
    const parameters: Record<string, JsonValue> = { name: input.name, prompt: input.prompt };
    if (input.description !== undefined) parameters['description'] = input.description;
    if (input.handoffs !== undefined) parameters['handoffs'] = [...input.handoffs];
    const result = await this.#ask(input.createdBy, OrgActions.createRole, parameters);
    return { roleId: field(result, 'roleId'), name: field(result, 'name') };
  }

  async spawn(input: { role: string; parent: string; parentTask?: Task; call?: SpawnCallRef }): Promise<{ agentId: string; roleId: string }> {
    const about = refTo(input.parentTask);
    const parameters: Record<string, JsonValue> = { role: input.role, about };
    if (input.call !== undefined) parameters['call'] = { taskId: input.call.taskId, toolCallId: input.call.toolCallId };
    const result = await this.#ask(input.parent, OrgActions.spawn, parameters);
    return { agentId: field(result, 'agentId'), roleId: field(result, 'roleId') };
  }

  async terminate(input: { agentId: string; by: string; reason: string; mode: TerminationMode; parentTask?: Task }): Promise<{ mode: TerminationMode }> {
    const about = refTo(input.parentTask);
    const result = await this.#ask(input.by, OrgActions.terminate, { agentId: input.agentId, reason: input.reason, mode: input.mode, about });
    // An owner from before terminations answered with their mode answers without one.
    const mode = TerminationModeSchema.safeParse(typeof result === 'object' && result !== null && !Array.isArray(result) ? result['mode'] : undefined);
    return { mode: mode.success ? mode.data : input.mode };
  }

  requireLive(agentId: string): void {
    if (this.local.record(agentId) !== undefined) this.local.requireLive(agentId);
  }

  requireRunning(agentId: string): void {
    this.local.requireRunning(agentId);
  }

  conversationOf(agentId: string, sessionId: string): CompressibleConversation {
    return this.local.conversationOf(agentId, sessionId);
  }

  remember(request: RememberRequest): Promise<RememberedFact> {
    return this.local.remember(request);
  }

  searchMemory(request: FactSearchRequest): Promise<FoundFact[]> {
    return this.local.searchMemory(request);
  }

  /** An agent's own graph is kept where it runs; the society's is the owner's, which a node does not reach. */
  graph(access: GraphAccess, operation: GraphOperation): Promise<Readonly<Record<string, JsonValue>>> {
    if (access.graph === 'society') {
      const message = "graph: the society's graph is kept by the owner process, which agents hosted on a node do not reach; use your own graph";
      return Promise.reject(new TroupeError('invalid_input', message, { context: { agentId: access.agentId } }));
    }
    return this.local.graph(access, operation);
  }

  /** The roles are the owner's: its router chooses, and any agent it spawns is the caller's child, placed by the owner. */
  async routeWork(request: WorkRequest): Promise<RoutedWork> {
    const parameters: Record<string, JsonValue> = { request: request.request, about: { id: request.parentTask.id, sessionId: request.parentTask.sessionId } };
    if (request.call !== undefined) parameters['call'] = { ...request.call };
    const result = await this.#ask(request.from, OrgActions.route, parameters);
    const routed = RoutedWorkSchema.safeParse(result);
    if (!routed.success)
      throw new TroupeError('internal', `the owner's answer to ${OrgActions.route} is malformed: ${routed.error.issues[0]?.message ?? 'invalid'}`);
    return routed.data;
  }

  /** Asks the owner on behalf of `from`; resolves with its result, rejects with its refusal (same code). */
  async #ask(from: string, action: string, parameters: Record<string, JsonValue>): Promise<JsonValue> {
    const request = createTask({ from, to: ownerAgentId, action, parameters }, this.local);
    const reply = await this.bus.request(request, { timeoutMs: this.requestTimeoutMs }).catch((error: unknown) => {
      if (!(error instanceof RequestTimeoutError)) throw error;
      throw new TroupeError('request_timeout', `the owner did not answer ${action} within ${this.requestTimeoutMs} ms (orgRequestTimeoutMs)`, {
        context: { agentId: from, taskId: request.id, timeoutMs: this.requestTimeoutMs },
        cause: error,
      });
    });
    if (reply.status !== 'completed') {
      throw new TroupeError(reply.error?.code ?? 'internal', reply.error?.message ?? `the owner answered ${action} ${reply.status}`, {
        context: { agentId: from },
      });
    }
    return reply.result;
  }
}

/** A string field of the owner's result; a result without it is the owner's bug, reported as such. */
function field(result: JsonValue, name: string): string {
  const value = typeof result === 'object' && result !== null && !Array.isArray(result) ? result[name] : undefined;
  if (typeof value !== 'string') throw new TroupeError('internal', `the owner's answer has no "${name}"`);
  return value;
}

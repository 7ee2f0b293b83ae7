import { type Observable, Subject, type Subscription, merge } from 'rxjs';
import { type EventBus, ownerAgentId } from '../../bus/index.js';
import type { Clock } from '../../clock.js';
import { RequestTimeoutError, TroupeError, ValidationError } from '../../errors.js';
import type { IdGenerator } from '../../ids.js';
import type { Logger } from '../../logger.js';
import { type Approval, ApprovalDecisionSchema, ApprovalSchema, type JsonValue, type Task, createTask, formatPath } from '../../task/index.js';
import type { ApprovalDesk, ApprovalEvent } from '../approvals/approvalDesk.js';
import { ApprovalNoticeSchema, OrgActions, PlacementActions } from '../society/remote/nodeProtocol.js';

/** How many decided approvals of other nodes are remembered, so `approval(id)` still finds a call just decided. */
const decidedKept = 1_000;

export interface RemoteApprovalsDeps {
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** At most this many calls of other nodes' agents are listed as waiting (the runtime's `maxPendingApprovals`). */
  readonly maxPending: number;
  /** How long a node has to answer a decision (`nodeRequestTimeoutMs`). */
  readonly requestTimeoutMs: number;
}

interface Remote {
  readonly node: string;
  readonly approval: Approval;
}

/**
 * Where the owner of a society spread over nodes hears of the calls that wait for a person on
 * other nodes (each node's desk sends `org.approval` notices) and sends a person's decision to the
 * node the call waits on (`nodes.decide`). A node keeps no store: a node lost while a call waits
 * asks again from wherever its agent restarts, and that notice replaces the lost one.
 */
class RemoteApprovals {
  readonly #waiting = new Map<string, Remote>();
  readonly #decided = new Map<string, Remote>();
  readonly #events = new Subject<ApprovalEvent>();
  readonly #deps: RemoteApprovalsDeps;
  readonly listening: Subscription;

  constructor(deps: RemoteApprovalsDeps) {
    this.#deps = deps;
    this.listening = deps.bus.subscribe({ to: ownerAgentId }, (task) => this.#notice(task), 'approvals on nodes');
  }

  get events(): Observable<ApprovalEvent> {
    return this.#events.asObservable();
  }

  pending(agentId?: string): Approval[] {
    return [...this.#waiting.values()].map(({ approval }) => approval).filter((approval) => agentId === undefined || approval.agentId === agentId);
  }

  get(id: string): Approval | undefined {
    return (this.#waiting.get(id) ?? this.#decided.get(id))?.approval;
  }

  get waitingCount(): number {
    return this.#waiting.size;
  }

  /** Whether `id` waits on a node, or was decided there lately (a second decision then gets the node's refusal). */
  knows(id: string): boolean {
    return this.#waiting.has(id) || this.#decided.has(id);
  }

  /** Sends the decision to the node the call waits on; resolves with the approval as decided there, rejects with the node's refusal (same code). */
  async decide(id: string, input: unknown): Promise<Approval> {
    const remote = this.#waiting.get(id) ?? this.#decided.get(id);
    if (remote === undefined) throw new TroupeError('unknown_approval', `no tool call waits for approval ${id}`, { context: { approvalId: id } });
    const parsed = ApprovalDecisionSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError(formatPath(issue?.path ?? []), issue?.message ?? 'not a decision');
    }
    const { bus, ids, clock, requestTimeoutMs } = this.#deps;
    const decision = JSON.parse(JSON.stringify(parsed.data)) as JsonValue;
    const request = createTask({ from: ownerAgentId, to: remote.node, action: PlacementActions.decide, parameters: { id, decision } }, { ids, clock });
    const reply = await bus.request(request, { timeoutMs: requestTimeoutMs }).catch((error: unknown) => {
      if (!(error instanceof RequestTimeoutError)) throw error;
      throw new TroupeError(
        'request_timeout',
        `node ${remote.node} did not answer the decision on ${id} within ${requestTimeoutMs} ms (nodeRequestTimeoutMs)`,
        {
          context: { approvalId: id },
          cause: error,
        },
      );
    });
    if (reply.status !== 'completed') {
      throw new TroupeError(reply.error?.code ?? 'internal', reply.error?.message ?? `node ${remote.node} answered the decision ${reply.status}`, {
        context: { approvalId: id },
      });
    }
    const decided = ApprovalSchema.safeParse(reply.result);
    if (!decided.success) throw new TroupeError('internal', `node ${remote.node} answered the decision on ${id} with no approval`);
    this.#settled(remote.node, decided.data);
    return decided.data;
  }

  close(): void {
    this.listening.unsubscribe();
    this.#events.complete();
  }

  #notice(task: Task): void {
    if (task.action !== OrgActions.approval || task.status !== 'submitted') return;
    const notice = ApprovalNoticeSchema.safeParse(task.parameters);
    if (!notice.success) {
      const issue = notice.error.issues[0];
      this.#deps.logger.warn(
        { from: task.from, field: formatPath(issue?.path ?? []), error: issue?.message },
        'a malformed approval notice from a node was dropped',
      );
      return;
    }
    const { node, type, approval } = notice.data;
    if (type === 'decided') {
      this.#settled(node, approval);
      this.#events.next({ type, approval });
      return;
    }
    if (!this.#waiting.has(approval.id) && this.#waiting.size >= this.#deps.maxPending) {
      this.#deps.logger.warn({ node, approvalId: approval.id }, 'a call waiting on a node is not listed: the owner lists maxPendingApprovals at most');
      return;
    }
    this.#waiting.set(approval.id, { node, approval });
    this.#events.next({ type, approval });
  }

  #settled(node: string, approval: Approval): void {
    this.#waiting.delete(approval.id);
    this.#decided.delete(approval.id);
    this.#decided.set(approval.id, { node, approval });
    if (this.#decided.size > decidedKept) this.#decided.delete(this.#decided.keys().next().value ?? approval.id);
  }
}

/**
 * A runtime's calls waiting for a person: its own desk's, and, for the owner of a society on
 * several nodes, those of the agents hosted elsewhere. One list, one place to decide.
 */
export class SocietyApprovals {
  readonly #desk: ApprovalDesk;
  readonly #remote: RemoteApprovals | undefined;

  constructor(desk: ApprovalDesk, remote?: RemoteApprovalsDeps) {
    this.#desk = desk;
    this.#remote = remote === undefined ? undefined : new RemoteApprovals(remote);
  }

  /** The calls waiting (of `agentId` when given), oldest first. */
  pending(agentId?: string): Approval[] {
    const local = this.#desk.pending(agentId);
    if (this.#remote === undefined) return local;
    return [...local, ...this.#remote.pending(agentId)].sort((a, b) => a.requestedAt - b.requestedAt);
  }

  /** How many calls wait (what `/metrics` reads). */
  pendingCount(): number {
    return this.#desk.pendingCount() + (this.#remote?.waitingCount ?? 0);
  }

  get(id: string): Approval | undefined {
    return this.#desk.get(id) ?? this.#remote?.get(id);
  }

  decide(id: string, decision: unknown): Promise<Approval> {
    if (this.#remote?.knows(id) === true && this.#desk.get(id) === undefined) return this.#remote.decide(id, decision);
    return this.#desk.decide(id, decision);
  }

  get events(): Observable<ApprovalEvent> {
    return this.#remote === undefined ? this.#desk.events : merge(this.#desk.events, this.#remote.events);
  }

  close(): void {
    this.#remote?.close();
    this.#desk.close();
  }
}

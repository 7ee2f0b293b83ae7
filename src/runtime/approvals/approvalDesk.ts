import { type Observable, Subject } from 'rxjs';
import { onAbort } from '../../abort.js';
import type { Clock, TimerHandle } from '../../clock.js';
import { TroupeError, ValidationError, describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { type Approval, type ApprovalDecision, ApprovalDecisionSchema, type JsonValue, approvalIdOf, argumentsDigest, formatPath } from '../../task/index.js';
import type { Journal } from '../journal/journal.js';
import { type RunTape, approvalNote } from '../../replay/index.js';

/** How many approvals whose calls are over are remembered, so a late second decision is told so. */
const overKept = 1_000;

/** Something that happened to an approval: a call began to wait for one, or it was decided (by a person, or by expiry). */
export interface ApprovalEvent {
  readonly type: 'waiting' | 'decided';
  readonly approval: Approval;
}

/** What a turn asks approval for: the call, and why it needs one. */
export type ApprovalRequest = Pick<Approval, 'agentId' | 'role' | 'taskId' | 'sessionId' | 'toolCallId' | 'tool' | 'arguments' | 'annotations' | 'reason'>;

export interface ApprovalLimits {
  readonly approvalExpiryMs: number;
  readonly maxPendingApprovals: number;
  readonly maxPendingApprovalsPerAgent: number;
}

export interface ApprovalDeskDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly journal: Pick<Journal, 'approval' | 'approvalOver' | 'storedApprovals'>;
  readonly limits: ApprovalLimits;
  /** Where a recorded run keeps each person's decision, for its replay to make again (docs/replay.md). */
  readonly tape?: RunTape | undefined;
  /** The JSON an edit's arguments run as, once checked against the tool's schema; throws `invalid_input` naming the field. */
  checkEdit(approval: Approval, args: Readonly<Record<string, JsonValue>>): string;
}

/**
 * The runtime's tool calls waiting for a person: where a turn asks for an approval and waits for
 * it, and where a person's decision arrives (`rt.decide`, HTTP, the CLI). Every change is durable
 * before anyone hears of it, so a decision holds through a crash. One timer, at the earliest
 * expiry, serves every pending approval: a thousand waiting cost no more than one.
 */
export class ApprovalDesk {
  readonly #kept = new Map<string, Approval>();
  readonly #waiters = new Map<string, (approval: Approval) => void>();
  /** The newest approvals whose calls are over (bounded): a decision arriving for one is a second decision, not an unknown one. */
  readonly #over = new Set<string>();
  readonly #events = new Subject<ApprovalEvent>();
  #timer: TimerHandle | null = null;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly deps: ApprovalDeskDeps) {}

  /** Takes back the approvals kept before a restart; those whose time ran out meanwhile expire now. */
  restore(): void {
    for (const approval of this.deps.journal.storedApprovals()) this.#kept.set(approval.id, approval);
    this.#expireDue();
  }

  /** Every approval asked for and decided, as it happens. */
  get events(): Observable<ApprovalEvent> {
    return this.#events.asObservable();
  }

  /** The approval `id`, whatever its status, while its call is not over. */
  get(id: string): Approval | undefined {
    return this.#kept.get(id);
  }

  /** The approval of `call` (its id, tool and arguments) of Task `taskId`, if one was asked for. */
  of(taskId: string, call: { readonly id: string; readonly name: string; readonly arguments: string }): Approval | undefined {
    // Asked before every tool call: with nothing kept, the id's digest of the arguments is not worth making.
    return this.#kept.size === 0 ? undefined : this.#kept.get(approvalIdOf(taskId, call));
  }

  /** The calls waiting for a decision (of `agentId` when given), oldest first. */
  pending(agentId?: string): Approval[] {
    return [...this.#kept.values()]
      .filter((approval) => approval.status === 'pending' && (agentId === undefined || approval.agentId === agentId))
      .sort((a, b) => a.requestedAt - b.requestedAt);
  }

  /** How many calls wait for a decision: `pending().length` without the copy and the sort. */
  pendingCount(): number {
    let count = 0;
    for (const approval of this.#kept.values()) if (approval.status === 'pending') count++;
    return count;
  }

  /** Asks for an approval: kept (durably) and announced; refused with `approval_limit` past the runtime's or the agent's bound. */
  async request(request: ApprovalRequest): Promise<Approval> {
    const { limits, clock } = this.deps;
    const waiting = this.pending();
    if (waiting.length >= limits.maxPendingApprovals) {
      throw new TroupeError('approval_limit', `${waiting.length} tool calls already wait for approval in this runtime (maxPendingApprovals)`, {
        context: { agentId: request.agentId, taskId: request.taskId },
      });
    }
    const ofAgent = waiting.filter((approval) => approval.agentId === request.agentId).length;
    if (ofAgent >= limits.maxPendingApprovalsPerAgent) {
      throw new TroupeError('approval_limit', `agent ${request.agentId} has ${ofAgent} tool calls waiting for approval (maxPendingApprovalsPerAgent)`, {
        context: { agentId: request.agentId, taskId: request.taskId },
      });
    }
    const now = clock.now();
    const approval: Approval = {
      v: 1,
      id: approvalIdOf(request.taskId, { id: request.toolCallId, name: request.tool, arguments: request.arguments }),
      ...request,
      digest: argumentsDigest(request.arguments),
      requestedAt: now,
      expiresAt: now + limits.approvalExpiryMs,
      status: 'pending',
      decision: null,
    };
    this.#kept.set(approval.id, approval);
    try {
      await this.deps.journal.approval(approval);
    } catch (error) {
      this.#kept.delete(approval.id);
      throw error;
    }
    this.#events.next({ type: 'waiting', approval });
    this.#schedule(approval.expiresAt);
    return approval;
  }

  /** Resolves with the approval once decided (at once when it is); rejects when `signal` aborts (the turn stopped). */
  wait(id: string, signal: AbortSignal): Promise<Approval> {
    const known = this.#kept.get(id);
    if (known === undefined) return Promise.reject(new TroupeError('unknown_approval', `no approval ${id}`));
    if (known.status !== 'pending') return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const stop = onAbort(signal, () => {
        this.#waiters.delete(id);
        reject(signal.reason);
      });
      this.#waiters.set(id, (approval) => {
        stop();
        resolve(approval);
      });
    });
  }

  /**
   * A person's decision on approval `id`. Refused: a decision that is not one (`invalid_input`,
   * naming the field), an approval not waiting (`unknown_approval`), one decided already or a
   * decision made on other arguments (`conflict`), an edit the tool's schema refuses
   * (`invalid_input`). Resolves once the decision is durable, then the turn goes on.
   */
  async decide(id: string, input: unknown): Promise<Approval> {
    const parsed = ApprovalDecisionSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError(formatPath(issue?.path ?? []), issue?.message ?? 'not a decision');
    }
    const decision = parsed.data;
    const approval = this.#kept.get(id);
    if (approval === undefined && this.#over.has(id)) {
      throw new TroupeError('conflict', `approval ${id} was decided already and its call is over; a second decision is refused`, {
        context: { approvalId: id },
      });
    }
    if (approval === undefined) throw new TroupeError('unknown_approval', `no tool call waits for approval ${id}`, { context: { approvalId: id } });
    if (approval.status !== 'pending') {
      throw new TroupeError('conflict', `approval ${id} was decided already (${approval.status}); a second decision is refused`, {
        context: { approvalId: id },
      });
    }
    if (decision.digest !== undefined && decision.digest !== approval.digest) {
      throw new TroupeError('conflict', `approval ${id} waits on other arguments than the decision was made on (digest ${approval.digest})`, {
        context: { approvalId: id },
      });
    }
    const decided = this.#decided(approval, decision);
    this.#kept.set(id, decided);
    try {
      await this.deps.journal.approval(decided);
    } catch (error) {
      this.#kept.set(id, approval);
      throw error;
    }
    this.deps.tape?.note(approvalNote, id, { ...decision });
    this.#settle(decided);
    return decided;
  }

  /** An approved call is about to run: kept durably first, so a crash during the run never runs it again. */
  async started(id: string): Promise<void> {
    const approval = this.#kept.get(id);
    if (approval === undefined) return;
    const started: Approval = { ...approval, status: 'started' };
    this.#kept.set(id, started);
    await this.deps.journal.approval(started);
  }

  /** The call's result is in (or it will never run): nothing more to keep of its approval. */
  over(id: string): void {
    const approval = this.#kept.get(id);
    if (approval === undefined) return;
    this.#kept.delete(id);
    this.#over.add(id);
    if (this.#over.size > overKept) this.#over.delete(this.#over.values().next().value ?? id);
    this.deps.journal.approvalOver(approval.agentId, id);
  }

  /** The Task reached a final status: its approvals are over, whatever their status (a cancelled Task's calls never run). */
  taskEnded(taskId: string): void {
    if (this.#kept.size === 0) return;
    for (const approval of [...this.#kept.values()]) if (approval.taskId === taskId) this.over(approval.id);
  }

  close(): void {
    if (this.#timer !== null) this.deps.clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#events.complete();
  }

  #decided(approval: Approval, decision: ApprovalDecision): Approval {
    const at = this.deps.clock.now();
    const by = decision.by === undefined ? {} : { by: decision.by };
    switch (decision.action) {
      case 'approve':
        return { ...approval, status: 'approved', decision: { action: 'approve', at, ...by } };
      case 'reject':
        return {
          ...approval,
          status: 'rejected',
          decision: { action: 'reject', at, ...by, ...(decision.message === undefined ? {} : { message: decision.message }) },
        };
      case 'edit':
        return { ...approval, status: 'approved', decision: { action: 'edit', at, ...by, arguments: this.deps.checkEdit(approval, decision.arguments) } };
    }
  }

  #settle(approval: Approval): void {
    this.#events.next({ type: 'decided', approval });
    const waiter = this.#waiters.get(approval.id);
    this.#waiters.delete(approval.id);
    waiter?.(approval);
  }

  /** Makes sure the one timer fires by `at`. */
  #schedule(at: number): void {
    if (at >= this.#timerAt) return;
    const { clock } = this.deps;
    if (this.#timer !== null) clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = clock.setTimeout(
      () => {
        this.#timer = null;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#expireDue();
      },
      Math.max(0, at - clock.now()),
    );
  }

  /** Rejects every pending approval whose time is up, then sets the timer for the next. */
  #expireDue(): void {
    const { clock, limits, logger, journal } = this.deps;
    const now = clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const approval of this.#kept.values()) {
      if (approval.status !== 'pending') continue;
      if (approval.expiresAt > now) {
        next = Math.min(next, approval.expiresAt);
        continue;
      }
      const message = `no decision within ${limits.approvalExpiryMs} ms (approvalExpiryMs)`;
      const expired: Approval = { ...approval, status: 'expired', decision: { action: 'reject', at: now, by: 'runtime', message } };
      this.#kept.set(approval.id, expired);
      // Settled once durable: a restart before then finds it pending, and expires it again.
      // A rejection is safe to act on unkept: a restart finds the call pending and expires it again.
      journal
        .approval(expired)
        .catch((error: unknown) => logger.error({ approvalId: approval.id, error: describeError(error) }, 'an expired approval could not be kept'))
        .finally(() => this.#settle(expired));
    }
    if (next !== Number.POSITIVE_INFINITY) this.#schedule(next);
  }
}

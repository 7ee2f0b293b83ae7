import type { Subscription } from 'rxjs';
import type { EventBus } from '../../bus/index.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AgentRecord, Role } from '../../org/index.js';
import { type Agent, asksForWork } from '../agent/index.js';

/** How far a restore has got. */
export interface RestoreProgress {
  /** Active agents the stored organisation had: the ones to restore. */
  readonly agents: number;
  /** Of those, the agents whose actors run now (started by the background restore, or early by a Task). */
  readonly restored: number;
  /** Waiting Tasks handed back to the restored agents so far. */
  readonly tasks: number;
}

interface Pending {
  readonly record: AgentRecord;
  readonly role: Role;
  /** Holds the agent's place on the bus until its actor runs. */
  readonly inbox: Subscription;
}

/**
 * The agents of a restored organisation whose actors have not started yet, oldest first. Their
 * records are known (they count as live), but their conversations and waiting Tasks are still
 * only in the store. Each keeps its place on the bus: a Task that asks it for work starts it at
 * once, ahead of the background restore, and is then given to it, so it queues behind the Tasks
 * the agent had waiting, as it would have after the restore. Nothing is written for an agent
 * until it starts, so what the store holds for it is exactly what it left.
 */
export class PendingAgents {
  readonly #pending = new Map<string, Pending>();
  readonly #bus: EventBus;
  readonly #logger: Logger;
  readonly #start: (record: AgentRecord, role: Role) => Agent;
  #agents = 0;
  #restored = 0;
  #tasks = 0;

  constructor(deps: { bus: EventBus; logger: Logger; start: (record: AgentRecord, role: Role) => Agent }) {
    this.#bus = deps.bus;
    this.#logger = deps.logger;
    this.#start = deps.start;
  }

  /** Adds a restored agent to start later; agents are started in the order they are added. */
  add(record: AgentRecord, role: Role): void {
    const id = record.id;
    const inbox = this.#bus.subscribe({ to: id }, (task) => (asksForWork(task) ? this.start(id)?.receive(task) : undefined), `restoring:${id}`);
    this.#pending.set(id, { record, role, inbox });
    this.#agents++;
  }

  has(agentId: string): boolean {
    return this.#pending.has(agentId);
  }

  /** The agents not started yet, oldest first. */
  ids(): string[] {
    return [...this.#pending.keys()];
  }

  get size(): number {
    return this.#pending.size;
  }

  progress(): RestoreProgress {
    return { agents: this.#agents, restored: this.#restored, tasks: this.#tasks };
  }

  /** Starts `agentId` now if it is still pending; returns it, or undefined when it was not pending or could not start. */
  start(agentId: string): Agent | undefined {
    const pending = this.#pending.get(agentId);
    if (pending === undefined) return undefined;
    this.#pending.delete(agentId);
    pending.inbox.unsubscribe();
    try {
      const agent = this.#start(pending.record, pending.role);
      this.#restored++;
      this.#tasks += agent.handedBack;
      return agent;
    } catch (error) {
      // Its record stays as it was, and so does what the store holds for it: a later start may restore it.
      this.#logger.error({ agentId, error: describeError(error) }, 'agent not restored: it could not start');
      return undefined;
    }
  }

  /** Starts the oldest pending agents until the Tasks they were handed back reach `budget` (an agent counts at least 1). */
  startNext(budget: number): void {
    let spent = 0;
    for (const agentId of this.#pending.keys()) {
      if (spent >= budget) return;
      spent += Math.max(1, this.start(agentId)?.handedBack ?? 0);
    }
  }

  /** Lets go of the agents not started yet (a shutdown): they stay in the store as they were, for the next start. */
  close(): void {
    for (const { inbox } of this.#pending.values()) inbox.unsubscribe();
    this.#pending.clear();
  }
}

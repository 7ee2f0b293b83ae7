import type { Task } from '../task/index.js';

/** What a bus wants a transport to bring it: Tasks for a target, or Tasks of an action pattern. */
export type Interest = { readonly target: string } | { readonly pattern: string };

/**
 * Agents' mailboxes kept by a transport's server until their host acknowledges each Task, so
 * they outlive the process hosting the agent (NATS JetStream). The owner opens an agent's
 * mailbox before placing it on a node and removes it when the agent is terminated; the node
 * hosting the agent holds it: its bus's interest in the agent is then served from the mailbox.
 */
export interface DurableMailboxes {
  /** Creates the agent's mailbox (or finds it): from now on every Task to the agent is kept until acknowledged. */
  open(agentId: string): Promise<void>;
  /** Deletes the agent's mailbox and what it still holds. */
  remove(agentId: string): Promise<void>;
  /**
   * Resolves once every removal owed is made: one that failed (the server unreachable or
   * restarting) is made again each time the connection comes back.
   */
  removalsSettled(): Promise<void>;
  /** Deletes every mailbox of the society (an owner starting over); resolves with how many there were. */
  removeAll(): Promise<number>;
  /**
   * Serves this bus's interest in `agentId` from its mailbox until the returned function is
   * called. A Task for which `awaitsAnswer` is true stays unacknowledged (its host keeps
   * extending it) until the agent's final reply to it is sent through this transport; every
   * other Task is acknowledged once delivered. Released, what is unacknowledged goes back to
   * the mailbox at once, for the agent's next host.
   */
  hold(agentId: string, awaitsAnswer: (task: Task) => boolean): () => void;
}

/**
 * Work (an agent and a Task id) the society was given, as a store that outlives the process
 * records it: what a transport consults so work replayed on the wire after a restart is not run
 * again.
 */
export interface GivenWork {
  /** Whether `agentId` was given work with the Task id `taskId` before. */
  given(agentId: string, taskId: string): boolean;
}

/**
 * Moves Tasks between buses. The in-process transport hands them straight back; a network
 * transport (NATS) serialises them and subscribes only to the interests its bus declares,
 * on subjects derived from society, target and action (see `subjectOf`).
 */
export interface Transport {
  readonly name: string;
  /**
   * Whether buses elsewhere may receive what this one sends. When false (one process), a bus
   * knows from its own subscribers whether anyone would see a Task.
   */
  readonly reachesOtherBuses: boolean;
  /** Mailboxes that outlive their host, when this transport keeps them (NATS with `durableMailboxes`). */
  readonly mailboxes?: DurableMailboxes;
  /**
   * Where Tasks arriving for this bus go. Called once, by the bus. `only: 'target'` hands a Task
   * to its target alone: a copy this bus's observers saw already, reaching the target later (from
   * a durable mailbox, for an agent hosted here since).
   */
  attach(deliver: (task: Task, only?: 'target') => void): void;
  /**
   * Drops work arriving from other buses that `record` says was given before, besides what this
   * transport remembers itself, until the returned function is called. Only a transport that
   * reaches other buses has it.
   */
  consultGivenWork?(record: GivenWork): () => void;
  /** Hands a Task over for delivery to every interested bus (including this one). */
  send(task: Task): void;
  /** Declares an interest; the returned function withdraws it. */
  declare(interest: Interest): () => void;
  /** Resolves once every Task sent and every interest declared before the call is in effect everywhere. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Delivers every Task back to the one bus in this process, synchronously. */
export class InProcessTransport implements Transport {
  readonly name = 'in-process';
  readonly reachesOtherBuses = false;
  #deliver: ((task: Task) => void) | undefined;

  attach(deliver: (task: Task) => void): void {
    this.#deliver = deliver;
  }

  send(task: Task): void {
    this.#deliver?.(task);
  }

  declare(): () => void {
    return () => undefined;
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#deliver = undefined;
    return Promise.resolve();
  }
}

import type { Subscription } from 'rxjs';
import type { DurableMailboxes, NodeChange, NodeDirectory } from '../../../bus/index.js';
import { describeError } from '../../../errors.js';
import type { AgentRecord, Role } from '../../../org/index.js';
import type { TroupeError } from '../../../errors.js';
import { type Task, asksForWork, finalStatuses, replyTo } from '../../../task/index.js';
import { RemoteAgent, type RemoteAgentDeps } from './remoteAgent.js';

/**
 * What the owner needs to place agents on its society's nodes; without a directory, every agent
 * runs in the owner's process. With durable `mailboxes`, an agent whose node is lost is moved to
 * another node with its role instead of being recorded terminated.
 */
export interface RemoteAgentsDeps extends RemoteAgentDeps {
  readonly directory: NodeDirectory | undefined;
  /** An agent gone with its node (restarted or left): the society records its termination. */
  readonly onLost: (agent: RemoteAgent, why: string) => void;
  /** Why work for `agentId` cannot be done: not an agent, or not a live one (undefined: deliverable, or not an agent's id). */
  readonly undeliverable: (agentId: string) => TroupeError | undefined;
}

/**
 * The owner's agents hosted on other nodes: where each new agent goes (a node that announced its
 * role, the least loaded first), and what becomes of them as their nodes come and go. One bus
 * subscription watches the work they are given and answer, for all of them.
 */
export class RemoteAgents {
  readonly #agents = new Map<string, RemoteAgent>();
  readonly #subscriptions: Subscription[] = [];
  /** Agents being moved to another node now: one move at a time each. */
  readonly #moving = new Set<string>();
  readonly #agentDeps: RemoteAgentDeps;

  constructor(private readonly deps: RemoteAgentsDeps) {
    const { directory, bus } = deps;
    this.#agentDeps = { ...deps, mailboxes: deps.mailboxes === undefined ? undefined : this.#startOver(deps.mailboxes) };
    if (directory === undefined) return;
    this.#subscriptions.push(directory.changes$.subscribe((change) => this.#nodeChanged(change)));
    this.#subscriptions.push(bus.subscribe({ pattern: '*' }, (task) => this.#observe(task), 'remote agents'));
  }

  /** The node to host a new agent of `role`: up, announcing the role, hosting the fewest of the owner's agents; none: the owner hosts it. */
  hostFor(role: Role): string | undefined {
    const candidates = this.deps.directory?.nodes().filter((node) => node.status === 'up' && node.roles.includes(role.name)) ?? [];
    const load = new Map<string, number>();
    for (const agent of this.#agents.values()) load.set(agent.node, (load.get(agent.node) ?? 0) + 1);
    return candidates.sort((a, b) => (load.get(a.node) ?? 0) - (load.get(b.node) ?? 0))[0]?.node;
  }

  /** Registers an agent about to be placed on `node` (see `RemoteAgent.place`). */
  add(record: AgentRecord, role: Role, node: string): RemoteAgent {
    const agent = new RemoteAgent(record, role, node, this.#agentDeps);
    this.#agents.set(record.id, agent);
    return agent;
  }

  get(agentId: string): RemoteAgent | undefined {
    return this.#agents.get(agentId);
  }

  has(agentId: string): boolean {
    return this.#agents.has(agentId);
  }

  get size(): number {
    return this.#agents.size;
  }

  ids(): string[] {
    return [...this.#agents.keys()];
  }

  /** The agents hosted on nodes, without copying them (what gauges count). */
  values(): IterableIterator<RemoteAgent> {
    return this.#agents.values();
  }

  remove(agentId: string): void {
    this.#agents.delete(agentId);
  }

  close(): void {
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
  }

  #observe(task: Task): void {
    const work = asksForWork(task);
    // Work given to a remote agent (which it answers), and answers from one (to whoever asked, remote or not).
    const receiver = work ? this.#agents.get(task.to) : undefined;
    if (receiver !== undefined) receiver.given(task);
    else if (work && this.deps.directory?.node(task.to) === undefined) this.#refuseUndeliverable(task);
    if (finalStatuses.has(task.status)) this.#agents.get(task.from)?.answered(task);
  }

  /**
   * Work from another node for an agent that is not live (it never was, or was terminated): no
   * one would ever answer it, so the owner does, at once, with the reason.
   */
  #refuseUndeliverable(task: Task): void {
    const refusal = this.deps.undeliverable(task.to);
    if (refusal === undefined) return;
    this.deps.bus.publish(replyTo(task, { status: 'failed', error: { code: refusal.code, message: refusal.message } }, this.deps.clock));
  }

  #nodeChanged({ node, change }: NodeChange): void {
    const hosted = [...this.#agents.values()].filter((agent) => agent.node === node.node);
    for (const agent of hosted) {
      if (change === 'unreachable') {
        agent.unreachable();
        if (agent.movable) this.#move(agent);
      } else if (change === 'reachable') agent.reachableAgain();
      else if (change === 'restarted' || change === 'left') {
        const why = change === 'left' ? `its node ${node.node} left the society` : `its node ${node.node} restarted`;
        if (agent.movable) {
          // Its state went with the node; its Tasks wait in its mailbox for wherever it goes next.
          agent.unreachable();
          this.#move(agent);
        } else {
          agent.lost(why);
          this.deps.onLost(agent, why);
        }
      }
    }
    if (change === 'left' || change === 'unreachable') return;
    for (const agent of this.#agents.values()) {
      agent.heardFrom(node.node);
      // Agents waiting for a node with their role: this one may take them.
      if (!agent.reachable && agent.movable && node.roles.includes(agent.role.name)) this.#move(agent);
    }
  }

  /** Places an agent whose node was lost on the least loaded up node with its role; with none, it waits for one. */
  #move(agent: RemoteAgent): void {
    if (this.#moving.has(agent.id)) return;
    const { logger } = this.deps;
    const node = this.hostFor(agent.role);
    if (node === undefined) {
      logger.warn({ agentId: agent.id, role: agent.role.name }, 'no node up hosts the role of an agent whose node was lost: its mailbox waits for one');
      return;
    }
    this.#moving.add(agent.id);
    void agent
      .moveTo(node)
      .then(
        () => logger.info({ agentId: agent.id, node, role: agent.role.name }, 'agent moved to another node'),
        (error: unknown) => logger.warn({ agentId: agent.id, node, error: describeError(error) }, 'could not move an agent: it waits for another node'),
      )
      .finally(() => this.#moving.delete(agent.id));
  }

  /**
   * The durable mailboxes, once those of an earlier owner process are removed: its placed agents
   * are restored here, in this process, from the org store, so their mailboxes would only keep
   * Tasks no one reads. Every new mailbox is opened after that removal.
   */
  #startOver(mailboxes: DurableMailboxes): DurableMailboxes {
    const { logger } = this.deps;
    const cleared = mailboxes.removeAll().then(
      (removed) => {
        if (removed > 0) logger.info({ mailboxes: removed }, "removed an earlier owner process's durable mailboxes");
      },
      (error: unknown) => logger.warn({ error: describeError(error) }, "could not remove an earlier owner process's durable mailboxes"),
    );
    return {
      open: async (agentId) => {
        await cleared;
        await mailboxes.open(agentId);
      },
      remove: (agentId) => mailboxes.remove(agentId),
      removeAll: () => mailboxes.removeAll(),
      removalsSettled: () => mailboxes.removalsSettled(),
      hold: (agentId, awaitsAnswer) => mailboxes.hold(agentId, awaitsAnswer),
    };
  }
}

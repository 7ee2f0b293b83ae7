import { type Observable, Subject, type Subscription } from 'rxjs';
import { z } from 'zod';
import type { Clock, TimerHandle } from '../clock.js';
import type { Logger } from '../logger.js';
import { type Task, parseOrThrow } from '../task/index.js';
import type { EventBus } from './eventBus.js';
import { NodeActions, type NodeAnnouncement, NodeAnnouncementSchema, ownerAgentId } from './nodeAnnouncement.js';

/** The owner's bounds on the nodes it keeps track of. */
export const NodeDirectoryOptionsSchema = z
  .object({
    /** Distinct nodes known at once; one more announcing is refused (dropped with a log line). */
    maxNodes: z.number().int().positive().default(100),
    /** Heartbeats a node may miss before it is marked `unreachable`. */
    missedHeartbeats: z.number().int().positive().default(3),
  })
  .strict();
export type NodeDirectoryOptions = z.input<typeof NodeDirectoryOptionsSchema>;

/** A node as the owner knows it. */
export interface KnownNode extends NodeAnnouncement {
  /** `unreachable`: not heard from for `missedHeartbeats` intervals; an announcement makes it `up` again. */
  readonly status: 'up' | 'unreachable';
}

/**
 * What happened to a node: `joined`; `unreachable` after missed heartbeats; `reachable` again;
 * `restarted` (back under a new incarnation: what it hosted before is gone); `left` cleanly.
 */
export interface NodeChange {
  readonly node: KnownNode;
  readonly change: 'joined' | 'unreachable' | 'reachable' | 'restarted' | 'left';
}

interface Entry {
  node: KnownNode;
  timer: TimerHandle;
}

/**
 * How late a silence timer may fire before the owner doubts its own ears: past this share of an
 * interval, the owner's event loop was held, and heartbeats may be waiting unread behind it.
 */
const STALL_SHARE = 0.5;

/**
 * The owner's view of a society's nodes, from their `nodes.announce` and `nodes.leave` Tasks to
 * `owner`: which nodes are up and which roles each hosts. A node silent for `missedHeartbeats`
 * of its own intervals is marked `unreachable` (never forgotten: its agents are not lost); a
 * malformed announcement, or one past `maxNodes`, is dropped with a log line.
 */
export class NodeDirectory {
  readonly #nodes = new Map<string, Entry>();
  readonly #subscription: Subscription;
  readonly #limits: z.output<typeof NodeDirectoryOptionsSchema>;
  readonly #changes = new Subject<NodeChange>();
  /** Every change of a node's standing, as it happens (the placement of agents follows it). */
  readonly changes$: Observable<NodeChange> = this.#changes.asObservable();

  constructor(
    bus: EventBus,
    private readonly deps: { readonly clock: Clock; readonly logger: Logger },
    options: NodeDirectoryOptions = {},
  ) {
    this.#limits = parseOrThrow(NodeDirectoryOptionsSchema, options);
    this.#subscription = bus.subscribe({ to: ownerAgentId }, (task) => this.#take(task), 'node directory');
  }

  /** Every node known, in the order they first announced themselves. */
  nodes(): KnownNode[] {
    return [...this.#nodes.values()].map((entry) => entry.node);
  }

  /** The node `id`, if it is known (up or unreachable). */
  node(id: string): KnownNode | undefined {
    return this.#nodes.get(id)?.node;
  }

  close(): void {
    this.#subscription.unsubscribe();
    this.#changes.complete();
    for (const entry of this.#nodes.values()) this.deps.clock.clearTimeout(entry.timer);
  }

  #take(task: Task): void {
    if (task.action !== NodeActions.announce && task.action !== NodeActions.leave) return;
    const parsed = NodeAnnouncementSchema.safeParse(task.parameters);
    if (!parsed.success || parsed.data.node !== task.from) {
      const reason = parsed.success
        ? `sent by ${task.from}, not by the node it names`
        : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      this.deps.logger.warn({ from: task.from, action: task.action, reason }, 'dropped a malformed node announcement');
      return;
    }
    if (task.action === NodeActions.leave) this.#leave(parsed.data);
    else this.#announce(parsed.data);
  }

  #announce(announcement: NodeAnnouncement): void {
    const known = this.#nodes.get(announcement.node);
    if (known === undefined && this.#nodes.size >= this.#limits.maxNodes) {
      this.deps.logger.warn({ node: announcement.node, maxNodes: this.#limits.maxNodes }, 'refused a node: the society has maxNodes nodes already');
      return;
    }
    if (known !== undefined) this.deps.clock.clearTimeout(known.timer);
    const node: KnownNode = { ...announcement, status: 'up' };
    this.#nodes.set(announcement.node, { node, timer: this.#listen(announcement.node, announcement.heartbeatMs * this.#limits.missedHeartbeats) });
    const change =
      known === undefined ? 'joined' : known.node.incarnation !== node.incarnation ? 'restarted' : known.node.status === 'up' ? undefined : 'reachable';
    if (change === undefined) return;
    const message = { joined: 'node joined', restarted: 'node restarted: what it hosted before is gone', reachable: 'node reachable again' }[change];
    this.deps.logger[change === 'restarted' ? 'warn' : 'info']({ node: node.node, roles: node.roles }, message);
    this.#changes.next({ node, change });
  }

  /**
   * The timer that marks node `id` silent `ms` from now. A timer that fires late says the owner's
   * event loop was held (timers run before the I/O queued meanwhile): the node's heartbeats may be
   * waiting unread, so it listens one more interval rather than marking a live node unreachable
   * and reachable again a moment later. It listens so once per silence: a loop held for good would
   * otherwise never let a dead node be marked.
   */
  #listen(id: string, ms: number, mayListenAgain = true): TimerHandle {
    const due = this.deps.clock.now() + ms;
    return this.deps.clock.setTimeout(() => {
      const entry = this.#nodes.get(id);
      if (entry === undefined) return;
      const lateMs = this.deps.clock.now() - due;
      if (mayListenAgain && lateMs > entry.node.heartbeatMs * STALL_SHARE) {
        this.deps.logger.debug({ node: id, lateMs }, 'silence timer fired late: listening one more heartbeat');
        entry.timer = this.#listen(id, entry.node.heartbeatMs, false);
      } else this.#silent(id);
    }, ms);
  }

  #silent(id: string): void {
    const entry = this.#nodes.get(id);
    if (entry === undefined) return;
    entry.node = { ...entry.node, status: 'unreachable' };
    this.deps.logger.warn({ node: id, silentForMs: entry.node.heartbeatMs * this.#limits.missedHeartbeats }, 'node unreachable: no heartbeat');
    this.#changes.next({ node: entry.node, change: 'unreachable' });
  }

  #leave(announcement: NodeAnnouncement): void {
    const entry = this.#nodes.get(announcement.node);
    // A late leave of an earlier incarnation says nothing of the one running now.
    if (entry === undefined || entry.node.incarnation !== announcement.incarnation) return;
    this.deps.clock.clearTimeout(entry.timer);
    this.#nodes.delete(announcement.node);
    this.deps.logger.info({ node: announcement.node }, 'node left');
    this.#changes.next({ node: entry.node, change: 'left' });
  }
}

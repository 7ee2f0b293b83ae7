import type { AgentRecord, SpawnCall, Termination } from '../../org/index.js';

const noChildren: ReadonlySet<string> = new Set();

/** One key per (parent, Task, tool call); the parts are ids, which hold no NUL. */
const spawnKey = (parent: string, call: SpawnCall): string => `${parent}\u0000${call.taskId}\u0000${call.toolCallId}`;

/**
 * The organisation as data: the live agents' records and parent links, the most recent
 * `keepTerminated` terminated agents' records, and who terminated whom among them. Kept apart
 * from the live actors because a record outlives its actor. Older terminated agents leave
 * memory (the org store, when there is one, keeps them all), so a long-running society's memory
 * does not grow with every agent it ever spawned.
 */
export class OrgTree {
  readonly #records = new Map<string, AgentRecord>();
  readonly #children = new Map<string, Set<string>>();
  /** By agent: an agent is terminated once. */
  readonly #terminations = new Map<string, Termination>();
  /** Terminated agents still in memory, oldest first. */
  readonly #retired = new Set<string>();
  /** The agents in memory that a tool call spawned, by `spawnKey`. */
  readonly #bySpawnCall = new Map<string, string>();
  readonly #keepTerminated: number;

  constructor(keepTerminated: number) {
    this.#keepTerminated = keepTerminated;
  }

  has(agentId: string): boolean {
    return this.#records.has(agentId);
  }

  get(agentId: string): AgentRecord | undefined {
    return this.#records.get(agentId);
  }

  all(): AgentRecord[] {
    return [...this.#records.values()];
  }

  parentOf(agentId: string): string | null {
    return this.#records.get(agentId)?.parentAgentId ?? null;
  }

  /** The agent in memory that `parent` spawned with `call`, if any. */
  spawnedBy(parent: string, call: SpawnCall): AgentRecord | undefined {
    const id = this.#bySpawnCall.get(spawnKey(parent, call));
    return id === undefined ? undefined : this.#records.get(id);
  }

  /** The termination of an agent still in memory. */
  termination(agentId: string): Termination | undefined {
    return this.#terminations.get(agentId);
  }

  add(record: AgentRecord): void {
    this.#records.set(record.id, record);
    if (record.parentAgentId === null) return;
    if (record.spawnCall !== undefined) this.#bySpawnCall.set(spawnKey(record.parentAgentId, record.spawnCall), record.id);
    let siblings = this.#children.get(record.parentAgentId);
    if (siblings === undefined) {
      siblings = new Set();
      this.#children.set(record.parentAgentId, siblings);
    }
    siblings.add(record.id);
  }

  /** Takes back a record whose creation could not be recorded durably. */
  remove(agentId: string): void {
    const record = this.#records.get(agentId);
    if (record === undefined) return;
    this.#records.delete(agentId);
    this.#terminations.delete(agentId);
    this.#retired.delete(agentId);
    if (record.parentAgentId === null) return;
    if (record.spawnCall !== undefined) this.#bySpawnCall.delete(spawnKey(record.parentAgentId, record.spawnCall));
    const siblings = this.#children.get(record.parentAgentId);
    siblings?.delete(agentId);
    if (siblings?.size === 0) this.#children.delete(record.parentAgentId);
  }

  /** Marks the agent terminated; returns the ids of the oldest terminated agents that left memory to make room. */
  markTerminated(agentId: string, at: number): string[] {
    const record = this.#records.get(agentId);
    if (record === undefined) return [];
    this.#records.set(agentId, { ...record, status: 'terminated', terminatedAt: at });
    return this.#retire(agentId);
  }

  /** Puts back a terminated agent read from the store, as the newest terminated one. */
  restoreTerminated(record: AgentRecord, termination: Termination | undefined): string[] {
    this.add(record);
    if (termination !== undefined) this.recordTermination(termination);
    return this.#retire(record.id);
  }

  recordTermination(termination: Termination): void {
    this.#terminations.set(termination.agentId, termination);
  }

  /** Who terminated whom, for the agents still in memory, in the order they were terminated. */
  terminations(): readonly Termination[] {
    return [...this.#terminations.values()];
  }

  /** Ids of `agentId`'s children in memory. */
  children(agentId: string): ReadonlySet<string> {
    return this.#children.get(agentId) ?? noChildren;
  }

  /** 1 for a top-level agent, its parent's depth + 1 for any other (ancestors of a live agent are in memory). */
  depthOf(agentId: string): number {
    let depth = 1;
    for (let parent = this.parentOf(agentId); parent !== null; parent = this.parentOf(parent)) depth++;
    return depth;
  }

  /** The agent and its descendants, parents before children. */
  subtree(rootId: string): string[] {
    const out: string[] = [];
    const queue = [rootId];
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      out.push(id);
      queue.push(...(this.#children.get(id) ?? []));
    }
    return out;
  }

  #retire(agentId: string): string[] {
    this.#retired.delete(agentId);
    this.#retired.add(agentId);
    const gone: string[] = [];
    for (const oldest of this.#retired) {
      if (this.#retired.size <= this.#keepTerminated) break;
      this.remove(oldest);
      // Its own children are terminated too (termination cascades): their link to it goes with it.
      this.#children.delete(oldest);
      gone.push(oldest);
    }
    return gone;
  }
}

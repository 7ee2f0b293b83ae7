import type { AgentRecord, Termination } from '../org/index.js';

const noChildren: ReadonlySet<string> = new Set();

/**
 * The organisation as data: every agent ever spawned, its parent link, and who terminated
 * whom. Kept apart from the live actors because the tree outlives them (terminated agents
 * stay on record) and because it is what the org store persists.
 */
export class OrgTree {
  readonly #records = new Map<string, AgentRecord>();
  readonly #children = new Map<string, Set<string>>();
  readonly #terminations: Termination[] = [];

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

  add(record: AgentRecord): void {
    this.#records.set(record.id, record);
    if (record.parentAgentId === null) return;
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
    if (record.parentAgentId !== null) this.#children.get(record.parentAgentId)?.delete(agentId);
  }

  markTerminated(agentId: string, at: number): void {
    const record = this.#records.get(agentId);
    if (record !== undefined) this.#records.set(agentId, { ...record, status: 'terminated', terminatedAt: at });
  }

  recordTermination(termination: Termination): void {
    this.#terminations.push(termination);
  }

  terminations(): readonly Termination[] {
    return this.#terminations;
  }

  /** Ids of `agentId`'s children on record. */
  children(agentId: string): ReadonlySet<string> {
    return this.#children.get(agentId) ?? noChildren;
  }

  /** 1 for a top-level agent, its parent's depth + 1 for any other (ancestors of a live agent are on record). */
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
}

import type { ModelUsage } from '../agent/index.js';

/**
 * Model usage of the society: each agent's while it is in memory, and the sum of those that have
 * left it, so the society's total stays whole however many agents came and went.
 */
export class UsageLedger {
  readonly #byAgent = new Map<string, ModelUsage>();
  readonly #retired: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };

  /** Follows `usage`, the live object the agent counts into. */
  track(agentId: string, usage: ModelUsage): void {
    this.#byAgent.set(agentId, usage);
  }

  of(agentId: string): ModelUsage | undefined {
    return this.#byAgent.get(agentId);
  }

  /** The agent left memory: its usage now only counts in the total. */
  retire(agentId: string): void {
    const usage = this.#byAgent.get(agentId);
    if (usage === undefined) return;
    this.#byAgent.delete(agentId);
    add(this.#retired, usage);
  }

  total(): ModelUsage {
    const sum = { ...this.#retired };
    for (const usage of this.#byAgent.values()) add(sum, usage);
    return sum;
  }
}

function add(into: ModelUsage, usage: ModelUsage): void {
  into.calls += usage.calls;
  into.promptTokens += usage.promptTokens;
  into.completionTokens += usage.completionTokens;
}

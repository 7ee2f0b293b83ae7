import type { TaskRef, TerminationMode } from '../../task/index.js';
import type { Agent } from '../agent/index.js';
import { Drains } from './drains.js';
import type { LiveAgents } from './liveAgents.js';
import type { OrgTree } from './orgTree.js';
import type { RemoteAgent } from './remote/remoteAgent.js';

/** Why a subtree stops, and how. */
interface Stop {
  readonly why: 'terminate' | 'shutdown';
  readonly mode: TerminationMode;
  readonly drainTimeoutMs: number;
  /** The turn that asked (a parent's), whose session the `agent.terminated` notices join; null when none did. */
  readonly about: TaskRef | null;
}

/**
 * How a subtree of the organisation stops: parents first so no one starts new work, children
 * drained before their parent is released, each termination recorded once even when a
 * terminate and a shutdown race. The society checks who may stop what; this does the stopping.
 */
export class SubtreeStops {
  readonly #drains: Drains;

  constructor(
    private readonly org: OrgTree,
    private readonly live: LiveAgents,
  ) {
    this.#drains = new Drains(live.activity, live.env.clock);
  }

  /** Terminates `rootId` and every descendant, draining first for up to `drainTimeoutMs` when `mode` is `drain`. */
  async terminate(rootId: string, by: string, reason: string, how: Omit<Stop, 'why'>): Promise<void> {
    // Restored agents of the subtree not started yet start now, so their waiting Tasks are drained or cancelled as any agent's are.
    for (const id of this.org.subtree(rootId)) this.live.pending.start(id);
    await this.#drains.track(this.#stop(rootId, by, reason, { why: 'terminate', ...how }));
  }

  /**
   * Records an agent gone with its node (never placed, restarted, left) terminated, and stops
   * its subtree as a termination does: the rest of the organisation never waits on it.
   */
  async lose(agent: RemoteAgent, why: string): Promise<void> {
    const { clock, journal } = this.live.env;
    const termination = { agentId: agent.id, terminatedBy: 'runtime', at: clock.now(), reason: why, mode: 'abort' as const };
    this.org.recordTermination(termination);
    try {
      await journal.terminated(termination);
    } finally {
      await this.#drains.track(this.#stop(agent.id, 'runtime', why, { why: 'terminate', mode: 'abort', drainTimeoutMs: 0, about: null }));
    }
  }

  /**
   * Stops every live agent for a shutdown. When the journal keeps the organisation, they are only
   * stopped: nothing is recorded as terminated and their unanswered work is handed back on restart.
   */
  async stopAll(): Promise<void> {
    // Restored agents not started yet stay as the store holds them: their work is handed back on the next start.
    this.live.pending.close();
    // Terminations draining now end now: what they had left is cancelled and they are recorded.
    this.#drains.cutShort();
    const live = new Set(this.live.ids());
    const topLevel = [...live].filter((id) => !live.has(this.org.parentOf(id) ?? ''));
    await Promise.all(topLevel.map((id) => this.#stop(id, 'runtime', 'shutdown', { why: 'shutdown', mode: 'abort', drainTimeoutMs: 0, about: null })));
    await this.#drains.settled();
  }

  /**
   * Stops a subtree and waits for every actor to end. A drain first closes the subtree's intake
   * and waits until none of it has work left (or the deadline); then it stops as an abort does.
   */
  async #stop(rootId: string, by: string, reason: string, stop: Stop): Promise<void> {
    const { clock, journal } = this.live.env;
    const resumable = stop.why === 'shutdown' && journal.persistent;
    const order = this.org.subtree(rootId).filter((id) => this.live.running(id) !== undefined);
    // Those already draining or stopping (a concurrent terminate or shutdown) are that one's to stop: waited for below, recorded once.
    const mine = order.map((id) => this.live.unclaimed(id)).filter((agent): agent is Agent | RemoteAgent => agent !== undefined);
    const terminations = mine.map(({ id }) => {
      const termination = { agentId: id, terminatedBy: id === rootId ? by : (this.org.parentOf(id) ?? by), at: clock.now(), reason, mode: stop.mode };
      this.org.recordTermination(termination);
      return termination;
    });
    const left = stop.mode === 'drain' ? await this.#drains.drain(mine, order, reason, stop.drainTimeoutMs) : reason;
    for (const agent of mine) agent.terminate(by, left, resumable, stop.about);
    if (stop.why === 'terminate') await Promise.all(terminations.map((termination) => journal.terminated(termination)));
    await Promise.all(
      order.map(async (id) => {
        const agent = this.live.running(id);
        if (agent === undefined) return;
        await agent.stopped();
        this.live.forget(agent, resumable);
      }),
    );
  }
}

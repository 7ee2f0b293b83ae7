import { TroupeError } from '../../errors.js';
import type { RuntimeConfig } from '../config/config.js';

/** The settings the limits are made of. */
export type SpawnLimitSettings = Pick<RuntimeConfig, 'maxLiveAgents' | 'maxChildrenPerAgent' | 'maxSpawnDepth'>;

/** What the limits read from the society: its live agents and the tree they form. */
export interface SocietyShape {
  /** Live agents, the ones still draining included. */
  readonly liveCount: number;
  /** Live children of `agentId`. */
  liveChildren(agentId: string): number;
  /** 1 for a top-level agent, its parent's depth + 1 for any other. */
  depthOf(agentId: string): number;
}

/**
 * The society's limits on its size and shape: live agents, live children per agent and depth.
 * A spawn reserves its place before its record is written and holds it until its agent is live,
 * so spawns in flight together (parallel tool calls) cannot all slip under a limit at once.
 * Restored agents are never refused: the limits apply to what is spawned from now on.
 */
export class SpawnLimits {
  readonly #limits: SpawnLimitSettings;
  readonly #shape: SocietyShape;
  /** Spawns in flight in all, and by parent. */
  #pending = 0;
  readonly #pendingChildren = new Map<string, number>();

  constructor(limits: SpawnLimitSettings, shape: SocietyShape) {
    this.#limits = limits;
    this.#shape = shape;
  }

  /** Throws the coded refusal when a child of `parent` (null: top-level) would break a limit; else holds its place until the returned release runs. */
  reserve(parent: string | null): () => void {
    const { maxLiveAgents, maxChildrenPerAgent, maxSpawnDepth } = this.#limits;
    const context = parent === null ? {} : { agentId: parent };
    if (this.#shape.liveCount + this.#pending >= maxLiveAgents) {
      throw new TroupeError('agent_limit', `the society has ${maxLiveAgents} live agents, its limit (maxLiveAgents); terminate some first`, { context });
    }
    if (parent !== null) {
      const children = this.#shape.liveChildren(parent) + (this.#pendingChildren.get(parent) ?? 0);
      if (children >= maxChildrenPerAgent) {
        throw new TroupeError(
          'children_limit',
          `agent "${parent}" has ${maxChildrenPerAgent} live children, its limit (maxChildrenPerAgent); terminate some first`,
          {
            context,
          },
        );
      }
      const depth = this.#shape.depthOf(parent) + 1;
      if (depth > maxSpawnDepth) {
        throw new TroupeError('spawn_depth_limit', `a child of "${parent}" would be at depth ${depth}, past the limit of ${maxSpawnDepth} (maxSpawnDepth)`, {
          context,
        });
      }
    }
    this.#pending++;
    if (parent !== null) this.#pendingChildren.set(parent, (this.#pendingChildren.get(parent) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#pending--;
      if (parent === null) return;
      const left = (this.#pendingChildren.get(parent) ?? 1) - 1;
      if (left === 0) this.#pendingChildren.delete(parent);
      else this.#pendingChildren.set(parent, left);
    };
  }
}

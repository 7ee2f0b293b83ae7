import { type Clock, type TimerHandle, unrefTimer } from '../../clock.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { ActivityTracker } from '../agent/activity.js';
import type { OrgTree } from './orgTree.js';

/** What the reaper looks at and how it lets a child go. */
export interface IdleReaperDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly org: OrgTree;
  readonly activity: ActivityTracker;
  /** The live agents' ids. */
  readonly liveIds: () => readonly string[];
  /** Whether the agent may still be terminated (live, not already stopping). */
  readonly isActive: (agentId: string) => boolean;
  /** Terminates the agent and its subtree as the runtime. */
  readonly terminate: (agentId: string, reason: string) => Promise<void>;
}

/**
 * Terminates child agents that have had no work for `afterMs` (`reapIdleChildrenAfterMs`): a
 * child whose parent's turn ended without terminating it would otherwise stay live for good.
 * It looks every quarter of the limit (so a child goes between `afterMs` and 1.25 × `afterMs`
 * after its last work), at the live agents only; a child is let go only when its whole subtree
 * is quiet, so no work in progress is cut.
 */
export class IdleReaper {
  readonly #deps: IdleReaperDeps;
  readonly #afterMs: number;
  readonly #everyMs: number;
  #timer: TimerHandle | undefined;
  #closed = false;

  constructor(deps: IdleReaperDeps, afterMs: number) {
    this.#deps = deps;
    this.#afterMs = afterMs;
    this.#everyMs = Math.max(1, Math.ceil(afterMs / 4));
    this.#schedule();
  }

  /** Stops looking; a sweep in progress finishes. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#deps.clock.clearTimeout(this.#timer);
  }

  /** The children idle past the limit now, each the top of a quiet subtree. */
  idleChildren(): string[] {
    const { org, activity, clock, liveIds, isActive } = this.#deps;
    const now = clock.now();
    const quietLongEnough = (id: string): boolean => {
      const since = activity.quietSince(id);
      // An agent not yet tracked (a restored one not started) has never been seen quiet.
      return since !== undefined && now - since >= this.#afterMs;
    };
    const quietTree = (id: string): boolean => org.subtree(id).every((member) => !isActive(member) || quietLongEnough(member));
    return liveIds().filter((id) => {
      const parent = org.parentOf(id);
      if (parent === null || !isActive(id) || !quietTree(id)) return false;
      // A parent that is an idle child too goes with its subtree: the subtree is let go once, from the top.
      return !(org.parentOf(parent) !== null && isActive(parent) && quietTree(parent));
    });
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = this.#deps.clock.setTimeout(() => void this.#sweep(), this.#everyMs);
    // Looking for idle children is no reason to keep the process alive.
    unrefTimer(this.#timer);
  }

  async #sweep(): Promise<void> {
    const { logger, terminate } = this.#deps;
    // The next look is due on time whatever this one waits for; one it finds stopping is not picked again (not active).
    this.#schedule();
    const idle = this.idleChildren();
    const reason = `idle for more than ${this.#afterMs} ms (reapIdleChildrenAfterMs)`;
    await Promise.all(
      idle.map(async (agentId) => {
        try {
          await terminate(agentId, reason);
          logger.info({ agentId, idleMs: this.#afterMs }, 'idle child agent terminated');
        } catch (error) {
          // Terminated or stopping meanwhile (its parent let it go first): nothing left to do.
          logger.debug({ agentId, error: describeError(error) }, 'idle child agent not terminated');
        }
      }),
    );
  }
}

/** The reaper of a society whose config sets `reapIdleChildrenAfterMs`; none when it is off. */
export function idleReaper(config: { readonly reapIdleChildrenAfterMs: number | null }, deps: IdleReaperDeps): IdleReaper | undefined {
  return config.reapIdleChildrenAfterMs === null ? undefined : new IdleReaper(deps, config.reapIdleChildrenAfterMs);
}

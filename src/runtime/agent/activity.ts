import { type Observable, Subject } from 'rxjs';

/**
 * Which agents are busy (working, or idle with mail), kept up to date from their snapshots so
 * that "is the society quiet?" costs O(1) however many agents there are.
 */
export class ActivityTracker {
  readonly #busy = new Set<string>();
  /** The local agents not at rest (see `isAtRest`): what a gauge reads one by one, while those at rest are only counted. */
  readonly #stirring = new Set<string>();
  /** When each quiet agent last became quiet (or was first seen quiet), for the idle reaper. */
  readonly #quietSince = new Map<string, number>();
  readonly #now: () => number;
  readonly #changes = new Subject<void>();
  /** Emits whenever an agent becomes busy or quiet. */
  readonly changes$: Observable<void> = this.#changes.asObservable();

  get busyCount(): number {
    return this.#busy.size;
  }

  isBusy(agentId: string): boolean {
    return this.#busy.has(agentId);
  }

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Since when `agentId` has been quiet; undefined while it is busy or before it was first tracked. */
  quietSince(agentId: string): number | undefined {
    return this.#quietSince.get(agentId);
  }

  track(agentId: string, busy: boolean): void {
    if (busy === this.#busy.has(agentId)) {
      if (!busy && !this.#quietSince.has(agentId)) this.#quietSince.set(agentId, this.#now());
      return;
    }
    if (busy) {
      this.#busy.add(agentId);
      this.#quietSince.delete(agentId);
    } else {
      this.#busy.delete(agentId);
      this.#quietSince.set(agentId, this.#now());
    }
    this.#changes.next();
  }

  /** Whether the local agent `agentId` is at rest now; cheap enough for every snapshot of every agent. */
  rest(agentId: string, atRest: boolean): void {
    if (atRest) this.#stirring.delete(agentId);
    else this.#stirring.add(agentId);
  }

  /** The local agents not at rest, by id. */
  stirring(): IterableIterator<string> {
    return this.#stirring.values();
  }

  /** The agent is gone: nothing of it is kept. */
  forget(agentId: string): void {
    this.#busy.delete(agentId);
    this.#stirring.delete(agentId);
    this.#quietSince.delete(agentId);
  }
}

import { type Observable, Subject } from 'rxjs';

/**
 * Which agents are busy (working, or idle with mail), kept up to date from their snapshots so
 * that "is the society quiet?" costs O(1) however many agents there are.
 */
export class ActivityTracker {
  readonly #busy = new Set<string>();
  readonly #changes = new Subject<void>();
  /** Emits whenever an agent becomes busy or quiet. */
  readonly changes$: Observable<void> = this.#changes.asObservable();

  get busyCount(): number {
    return this.#busy.size;
  }

  isBusy(agentId: string): boolean {
    return this.#busy.has(agentId);
  }

  track(agentId: string, busy: boolean): void {
    if (busy === this.#busy.has(agentId)) return;
    if (busy) this.#busy.add(agentId);
    else this.#busy.delete(agentId);
    this.#changes.next();
  }
}

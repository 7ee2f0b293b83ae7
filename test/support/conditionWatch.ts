/**
 * Conditions a test waits for, each checked again whenever something it depends on calls
 * `changed` (an inspection event, a model call, an answer): never on a timer, and never by
 * counting turns of the event loop, which a busy machine spends before slow I/O completes.
 */
export class ConditionWatch {
  readonly #checks = new Set<() => void>();

  /** Checks every waiting condition again. */
  readonly changed = (): void => {
    for (const check of [...this.#checks]) check();
  };

  /** Resolves once `condition` holds, checked now and at each `changed`. */
  until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!condition()) return;
        this.#checks.delete(check);
        resolve();
      };
      this.#checks.add(check);
      check();
    });
  }
}

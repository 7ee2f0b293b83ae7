import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** Attempts at an owed removal each time the connection is back: JetStream answers a moment after the server does. */
const attemptsPerReconnect = 10;
const betweenAttemptsMs = 500;

/**
 * Durable mailboxes to delete, kept until each is: a removal that fails (the server restarting,
 * the connection down) is made again once the connection is back, instead of leaving a
 * terminated agent's mailbox in the stream for good. Bounded by the agents removed while NATS
 * was away, each an id.
 */
export class OwedRemovals {
  readonly #owed = new Set<string>();
  #retrying = false;
  #waiters: (() => void)[] = [];
  #closed = false;

  constructor(
    private readonly deleteNow: (agentId: string) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  get count(): number {
    return this.#owed.size;
  }

  /** Removes now; when that fails, owes it (and rejects, so the caller hears why). */
  async remove(agentId: string): Promise<void> {
    this.#owed.add(agentId);
    await this.deleteNow(agentId);
    this.#paid(agentId);
  }

  /** The mailbox is wanted again (opened): nothing is owed for it. */
  forget(agentId: string): void {
    this.#paid(agentId);
  }

  /** Makes every owed removal again, a few times while JetStream is not ready yet. */
  retry(): void {
    if (this.#retrying) return;
    this.#retrying = true;
    void this.#retryAll().finally(() => {
      this.#retrying = false;
    });
  }

  /** Resolves once nothing is owed. */
  settled(): Promise<void> {
    if (this.#owed.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.#closed = true;
  }

  async #retryAll(): Promise<void> {
    for (let attempt = 1; attempt <= attemptsPerReconnect && this.#owed.size > 0 && !this.#closed; attempt++) {
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, betweenAttemptsMs).unref());
      let lastError: unknown;
      for (const agentId of [...this.#owed]) {
        try {
          await this.deleteNow(agentId);
          this.#paid(agentId);
          this.logger.info({ agentId }, 'removed a durable mailbox owed since NATS was unreachable');
        } catch (error) {
          lastError = error;
        }
      }
      if (this.#owed.size > 0 && attempt === attemptsPerReconnect) {
        this.logger.warn(
          { owed: this.#owed.size, error: describeError(lastError) },
          'durable mailboxes still owed a removal: tried again on the next reconnection',
        );
      }
    }
  }

  #paid(agentId: string): void {
    if (!this.#owed.delete(agentId) || this.#owed.size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

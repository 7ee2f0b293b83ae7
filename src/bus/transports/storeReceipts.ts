import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Task } from '../../task/index.js';

/** Tasks waiting for JetStream's receipt; past this, the oldest is forgotten (its receipt, if it ever comes, is ignored). */
const waitingKept = 4096;

/**
 * JetStream's receipts for the Tasks this connection publishes while durable mailboxes are on:
 * each publish names a reply subject of this connection's, where the stream answers with where it
 * stored the Task or why it would not (`maximum messages exceeded`). Receipts of stored Tasks are
 * dropped; a refusal goes to `refused`, with the Task.
 */
export class StoreReceipts {
  readonly #waiting = new Map<string, Task>();
  readonly #subscription: Subscription;
  #next = 0;

  constructor(
    nc: NatsConnection,
    private readonly prefix: string,
    refused: (task: Task, reason: string) => void,
  ) {
    this.#subscription = nc.subscribe(`${prefix}.*`, {
      callback: (error, msg) => {
        if (error !== null) return;
        const key = msg.subject.slice(prefix.length + 1);
        const task = this.#waiting.get(key);
        if (task === undefined) return;
        this.#waiting.delete(key);
        const reason = refusalIn(msg.string());
        if (reason !== undefined) refused(task, reason);
      },
    });
  }

  /** The reply subject for publishing `task`: its receipt comes back there. */
  replySubjectFor(task: Task): string {
    const key = (this.#next++).toString(36);
    this.#waiting.set(key, task);
    if (this.#waiting.size > waitingKept) {
      const [oldest] = this.#waiting.keys();
      if (oldest !== undefined) this.#waiting.delete(oldest);
    }
    return `${this.prefix}.${key}`;
  }

  close(): void {
    this.#subscription.unsubscribe();
    this.#waiting.clear();
  }
}

/** The stream's reason for refusing, from its receipt; undefined when it stored the Task. */
function refusalIn(receipt: string): string | undefined {
  try {
    const parsed = JSON.parse(receipt) as { error?: { description?: unknown } };
    if (parsed.error === undefined) return undefined;
    return typeof parsed.error.description === 'string' ? parsed.error.description : 'refused';
  } catch {
    return `an unreadable receipt: ${receipt.slice(0, 200)}`;
  }
}

import type { Task } from '../../task/index.js';

interface HeldMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly task: Task;
}

/**
 * Messages sent while the connection was down, in the order sent, until it is back. The NATS
 * client would buffer them itself, but throws its buffer away at every reconnect attempt;
 * holding them here is what lets `whileDisconnected: 'wait'` keep its word.
 */
export class HeldMessages {
  #messages: HeldMessage[] = [];
  #bytes = 0;

  /** Bytes held (counted against `maxPendingBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  get count(): number {
    return this.#messages.length;
  }

  hold(subject: string, data: Uint8Array, task: Task): void {
    this.#messages.push({ subject, data, task });
    this.#bytes += data.byteLength;
  }

  /** Hands every held message to `send`, oldest first, and forgets them. */
  release(send: (subject: string, data: Uint8Array, task: Task) => void): void {
    const messages = this.#messages;
    this.#messages = [];
    this.#bytes = 0;
    for (const { subject, data, task } of messages) send(subject, data, task);
  }
}

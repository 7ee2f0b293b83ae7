/** Why a piece of work was refused: its sender's share is used up, or every sender's together is. */
export type ShareRefusal = 'sender' | 'total';

/**
 * Work that came from the wire to agents on this bus and is not answered yet, counted per
 * sender: one sender flooding a bus with work takes at most `maxPerSender` of its agents'
 * attention, and all senders together at most `maxTotal`, so the work of others still gets in
 * and the count itself stays bounded. A share is given back when the agent's final reply to the
 * work is sent.
 */
export class SenderShares {
  readonly #bySender = new Map<string, number>();
  // The sender of each piece of work counted, by its agent and Task id.
  readonly #senderOf = new Map<string, string>();

  constructor(
    readonly maxPerSender: number,
    readonly maxTotal: number,
  ) {}

  /** Counts the work `key` from `sender`; why not, when it is over a limit (then it is not counted). */
  take(sender: string, key: string): ShareRefusal | undefined {
    if (this.#senderOf.has(key)) return undefined;
    const taken = this.#bySender.get(sender) ?? 0;
    if (taken >= this.maxPerSender) return 'sender';
    if (this.#senderOf.size >= this.maxTotal) return 'total';
    this.#bySender.set(sender, taken + 1);
    this.#senderOf.set(key, sender);
    return undefined;
  }

  /** The work `key` is answered: its sender's share is given back. */
  answered(key: string): void {
    const sender = this.#senderOf.get(key);
    if (sender === undefined) return;
    this.#senderOf.delete(key);
    const left = (this.#bySender.get(sender) ?? 1) - 1;
    if (left === 0) this.#bySender.delete(sender);
    else this.#bySender.set(sender, left);
  }

  /** Pieces of work counted now, over every sender. */
  get size(): number {
    return this.#senderOf.size;
  }
}

/** The sender a sending id names (`<sender>.<n>`, as troupe's transports write them); ids of any other shape share one. */
export function senderOf(sendingId: string): string {
  const dot = sendingId.lastIndexOf('.');
  return dot > 0 ? sendingId.slice(0, dot) : '(unnamed)';
}

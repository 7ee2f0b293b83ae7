/**
 * Counts bytes handed to a connection that its server has not yet confirmed, so a sender can be
 * refused before a stalled or lost connection buffers without end. Confirmation is a flush (a
 * PING answered by a PONG: the server has read everything sent before it); one flush is in
 * flight at a time and covers every byte counted before it began. A flush that fails (the
 * connection dropped, and the client discarded what it held) releases its bytes too: they
 * are no longer held anywhere, only lost, which core NATS allows (at most once).
 */
export class UnconfirmedBytes {
  #total = 0;
  #sinceFlush = 0;
  #flushing = false;

  constructor(private readonly flush: () => Promise<void>) {}

  /** Bytes sent and not yet confirmed or lost. */
  get total(): number {
    return this.#total;
  }

  add(bytes: number): void {
    this.#total += bytes;
    this.#sinceFlush += bytes;
    if (!this.#flushing) this.#startFlush();
  }

  #startFlush(): void {
    const covered = this.#sinceFlush;
    this.#sinceFlush = 0;
    this.#flushing = true;
    const release = (): void => {
      this.#total -= covered;
      this.#flushing = false;
      if (this.#sinceFlush > 0) this.#startFlush();
    };
    this.flush().then(release, release);
  }
}

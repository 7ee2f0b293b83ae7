/** What a RedactingStream needs of its redactor. */
export interface StreamRedaction {
  text(text: string): string;
  /** How many characters at the end of `text` could be the start of a secret (in any of its forms) still arriving. */
  openTail(text: string): number;
}

/**
 * Redacts a text that arrives in pieces, such as a model's streamed reply: a secret split across
 * two pieces is still caught, because the end of a piece that could be the start of a secret is
 * held back until the next piece says whether it is (so what is shown lags by at most one
 * secret's length, and only while the text looks like one).
 */
export class RedactingStream {
  #held = '';

  constructor(private readonly redaction: StreamRedaction) {}

  /** The part of everything pushed so far that is safe to show now, redacted. */
  push(piece: string): string {
    const text = this.redaction.text(this.#held + piece);
    const open = this.redaction.openTail(text);
    this.#held = text.slice(text.length - open);
    return text.slice(0, text.length - open);
  }

  /** What is still held back (the stream has ended: it is no secret's start after all); the stream starts afresh. */
  flush(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }
}

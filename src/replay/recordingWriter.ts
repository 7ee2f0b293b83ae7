import { closeSync, openSync, writeSync } from 'node:fs';
import { TroupeError, describeError } from '../errors.js';
import type { RecordingHeader, RunRecord } from './recordingFormat.js';

/** Lines held before they are written at once; a turn of the event loop writes whatever is held. */
const batchBytes = 64 * 1024;

/**
 * Appends a recording's lines to its file: whole lines only, a batch at a time (at most one turn
 * of the event loop after they were made), so a crash leaves every line but the last batch's
 * readable. Past `maxBytes` it writes one `limit` line and nothing more: `full` is then true.
 */
export class RecordingWriter {
  readonly #fd: number;
  readonly #maxBytes: number;
  #held: string[] = [];
  #heldBytes = 0;
  #written = 0;
  #flushing: NodeJS.Immediate | undefined;
  #full = false;
  #failure: string | undefined;
  #closed = false;

  /** Creates (or empties) `file` and writes the header line; an unwritable file is refused (`invalid_input`) naming it. */
  constructor(file: string, header: RecordingHeader, maxBytes: number) {
    this.#maxBytes = maxBytes;
    try {
      this.#fd = openSync(file, 'w');
    } catch (error) {
      throw new TroupeError('invalid_input', `record: cannot write the recording ${file}: ${describeError(error)}`, { cause: error });
    }
    this.line(JSON.stringify(header));
    this.flush();
  }

  /** Whether the recording reached `maxBytes`: nothing more is written. */
  get full(): boolean {
    return this.#full;
  }

  /** Why nothing more is written, when writing failed (a full disk). */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Bytes written or held so far. */
  get bytes(): number {
    return this.#written + this.#heldBytes;
  }

  record(record: RunRecord): void {
    this.line(JSON.stringify(record));
  }

  /** Adds one line (JSON without line breaks); refused silently once full, the `limit` line written instead. */
  line(text: string): void {
    if (this.#full || this.#closed) return;
    const size = Buffer.byteLength(text) + 1;
    if (this.bytes + size > this.#maxBytes) {
      this.#full = true;
      this.#hold(JSON.stringify({ k: 'limit', maxBytes: this.#maxBytes } satisfies RunRecord));
      this.flush();
      return;
    }
    this.#hold(text);
  }

  #hold(text: string): void {
    const line = `${text}\n`;
    this.#held.push(line);
    this.#heldBytes += Buffer.byteLength(line);
    if (this.#heldBytes >= batchBytes) this.flush();
    else this.#flushing ??= setImmediate(() => this.flush()).unref();
  }

  /** Writes every held line now. */
  flush(): void {
    if (this.#flushing !== undefined) clearImmediate(this.#flushing);
    this.#flushing = undefined;
    if (this.#held.length === 0) return;
    const text = this.#held.join('');
    this.#held = [];
    this.#written += this.#heldBytes;
    this.#heldBytes = 0;
    try {
      writeSync(this.#fd, text);
    } catch (error) {
      this.#full = true;
      this.#failure = `could not be written: ${describeError(error)}`;
    }
  }

  /** Writes what is held and closes the file; later lines are dropped. */
  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    closeSync(this.#fd);
  }
}

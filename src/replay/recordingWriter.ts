import { closeSync, openSync, writeSync } from 'node:fs';
import { TroupeError, describeError } from '../errors.js';
import type { RecordingHeader, RunRecord } from './recordingFormat.js';

/** Lines held before they are written at once, whatever the time. */
const batchBytes = 64 * 1024;

/**
 * How long a line may be held before it is written: a write per batch rather than per step of a
 * fast loop (a step is a millisecond or less, a write to the file tens of microseconds), and at
 * most this much of a run lost when its process is killed outright.
 */
const batchMs = 10;

/** The writers open in this process, each written out when the process exits. */
const openWriters = new Set<RecordingWriter>();
let flushingAtExit = false;

function flushAtExit(writer: RecordingWriter): void {
  openWriters.add(writer);
  if (flushingAtExit) return;
  flushingAtExit = true;
  process.once('exit', () => {
    for (const each of openWriters) each.flush();
  });
}

/**
 * Appends a recording's lines to its file: whole lines only, a batch at a time (what was recorded
 * over at most `batchMs`, or `batchBytes`), so a process killed outright (kill -9) leaves every
 * line but the last batch's readable; one that exits otherwise (process.exit, an uncaught
 * exception) writes what it holds first. Past `maxBytes` it writes one `limit` line and nothing
 * more: `full` is then true.
 */
export class RecordingWriter {
  readonly #fd: number;
  readonly #maxBytes: number;
  #held: string[] = [];
  #heldBytes = 0;
  #written = 0;
  #flushing: NodeJS.Timeout | undefined;
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
    flushAtExit(this);
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
      const limit = JSON.stringify({ k: 'limit', maxBytes: this.#maxBytes } satisfies RunRecord);
      this.#hold(limit, Buffer.byteLength(limit) + 1);
      this.flush();
      return;
    }
    this.#hold(text, size);
  }

  /** Holds `text` as a line of `size` bytes (its line break included). */
  #hold(text: string, size: number): void {
    this.#held.push(text);
    this.#heldBytes += size;
    if (this.#heldBytes >= batchBytes) this.flush();
    else this.#flushing ??= setTimeout(() => this.flush(), batchMs).unref();
  }

  /** Writes every held line now. */
  flush(): void {
    if (this.#flushing !== undefined) clearTimeout(this.#flushing);
    this.#flushing = undefined;
    if (this.#held.length === 0) return;
    const text = `${this.#held.join('\n')}\n`;
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
    openWriters.delete(this);
    closeSync(this.#fd);
  }
}

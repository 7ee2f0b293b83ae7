import { closeSync, openSync, write, writeSync } from 'node:fs';
import { TroupeError, describeError } from '../errors.js';
import type { RecordingHeader, RunRecord } from './recordingFormat.js';

/** Lines held before they are written at once, whatever the time. */
const batchBytes = 64 * 1024;

/**
 * How long a line may be held before it is written: a write per batch rather than per step of a
 * fast loop (a step is a millisecond or less, a write to the file tens of microseconds), and at
 * most this much of a run held when its process is killed outright.
 */
const batchMs = 10;

/** The writers open in this process, each written out when the process exits. */
const openWriters = new Set<RecordingWriter>();
let writingAtExit = false;

function writeAtExit(writer: RecordingWriter): void {
  openWriters.add(writer);
  if (writingAtExit) return;
  writingAtExit = true;
  process.once('exit', () => {
    for (const each of openWriters) each.writeNow();
  });
}

/** A batch on its way to the file: its bytes and where they go. */
interface Batch {
  readonly bytes: Buffer;
  readonly at: number;
}

/**
 * Appends a recording's lines to its file: whole lines only, a batch at a time (what was recorded
 * over at most `batchMs`, or `batchBytes`), each written off the event loop (the next batch waits
 * for it), so a process killed outright (kill -9) leaves every line but those of the batch being
 * written and the one held readable; one that exits otherwise (process.exit, an uncaught
 * exception) writes them first. Past `maxBytes` it writes one `limit` line and nothing more:
 * `full` is then true.
 */
export class RecordingWriter {
  readonly #fd: number;
  readonly #maxBytes: number;
  #held: string[] = [];
  #heldBytes = 0;
  /** Bytes given to the file so far (written, or being written): where the next batch goes. */
  #written = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Batch | undefined;
  #full = false;
  #failure: string | undefined;
  #closed = false;
  /** Told once the last batch is written and the file closed. */
  #whenClosed: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  /** Creates (or empties) `file` and writes the header line; an unwritable file is refused (`invalid_input`) naming it. */
  constructor(file: string, header: RecordingHeader, maxBytes: number) {
    this.#maxBytes = maxBytes;
    try {
      this.#fd = openSync(file, 'w');
    } catch (error) {
      throw new TroupeError('invalid_input', `record: cannot write the recording ${file}: ${describeError(error)}`, { cause: error });
    }
    this.line(JSON.stringify(header));
    this.writeNow();
    writeAtExit(this);
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
      this.#flush();
      return;
    }
    this.#hold(text, size);
  }

  /** Holds `text` as a line of `size` bytes (its line break included). */
  #hold(text: string, size: number): void {
    this.#held.push(text);
    this.#heldBytes += size;
    if (this.#heldBytes >= batchBytes) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), batchMs).unref();
  }

  /** The held lines as the next batch, placed after everything before it. */
  #take(): Batch | undefined {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#held.length === 0) return undefined;
    const bytes = Buffer.from(`${this.#held.join('\n')}\n`);
    const batch = { bytes, at: this.#written };
    this.#held = [];
    this.#written += this.#heldBytes;
    this.#heldBytes = 0;
    return batch;
  }

  /** Starts writing the held lines, unless a batch is being written (they go when it is done). */
  #flush(): void {
    if (this.#writing !== undefined) return;
    const batch = this.#take();
    if (batch === undefined) {
      this.#closeWhenDone();
      return;
    }
    this.#writing = batch;
    write(this.#fd, batch.bytes, 0, batch.bytes.length, batch.at, (error) => {
      this.#writing = undefined;
      if (error !== null) this.#failed(error);
      if (this.#held.length > 0 && this.#failure === undefined) this.#flush();
      else this.#closeWhenDone();
    });
  }

  #failed(error: unknown): void {
    this.#full = true;
    this.#failure ??= `could not be written: ${describeError(error)}`;
  }

  /**
   * Writes the batch being written (again: the same bytes at the same place) and every held line
   * now, synchronously: what the process exiting, or the file being closed, does.
   */
  writeNow(): void {
    for (const batch of [this.#writing, this.#take()]) {
      if (batch === undefined) continue;
      try {
        writeSync(this.#fd, batch.bytes, 0, batch.bytes.length, batch.at);
      } catch (error) {
        this.#failed(error);
      }
    }
  }

  #closeWhenDone(): void {
    if (!this.#closed || this.#writing !== undefined || this.#whenClosed === undefined) return;
    const closed = this.#whenClosed;
    this.#whenClosed = undefined;
    openWriters.delete(this);
    closeSync(this.#fd);
    closed();
  }

  /** Writes what is held and closes the file once the batch being written is done; later lines are dropped. */
  close(): Promise<void> {
    if (this.#closing !== undefined) return this.#closing;
    this.#closed = true;
    this.#closing = new Promise<void>((resolve) => (this.#whenClosed = resolve));
    this.#flush();
    return this.#closing;
  }
}

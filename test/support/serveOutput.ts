/** A JSON log line of `troupe serve` (pino). */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/**
 * What a `troupe serve` has written so far, wherever it runs: its JSON log lines parsed as they
 * arrive, its stdout, and a way to wait for either (woken by output, not by a timer).
 */
export class ServeOutput {
  readonly logs: LogLine[] = [];
  stdout = '';
  stderr = '';
  #partial = '';
  #ended = false;
  readonly #waiting = new Set<() => void>();

  /** Resolves once `condition` holds; rejects if the command ends first. */
  async until<T>(condition: () => T | undefined, what: string): Promise<T> {
    for (;;) {
      const value = condition();
      if (value !== undefined && value !== false) return value;
      if (this.#ended) throw new Error(`troupe serve ended before ${what}\n${this.stderr}`);
      await new Promise<void>((resolve) => this.#waiting.add(resolve));
    }
  }

  /** The first log line with message `msg`, once it is there. */
  log(msg: string): Promise<LogLine> {
    return this.until(() => this.logs.find((line) => line.msg === msg), `log "${msg}"`);
  }

  /** The base URL the HTTP API listens on. */
  async url(): Promise<string> {
    return String((await this.log('HTTP API listening'))['url']);
  }

  protected takeStderr(text: string): void {
    this.stderr += text;
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('{')) this.logs.push(JSON.parse(line) as LogLine);
    }
    this.wake();
  }

  protected takeStdout(text: string): void {
    this.stdout += text;
    this.wake();
  }

  /** The command has ended: nothing it has not written will come. */
  protected ended(): void {
    this.#ended = true;
    this.wake();
  }

  /** Lets every `until` look again. */
  protected wake(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const resolve of waiting) resolve();
  }
}

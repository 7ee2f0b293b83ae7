import type { AgentView } from '../runtime/index.js';
import type { CliOutput } from './cliIo.js';

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A one-line live view of who is working, redrawn in place on a terminal. Lines printed
 * through `print` appear above it, so the status line never interleaves with output.
 */
export class StatusLine {
  #frame = 0;
  #shown = false;
  #notice: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly stream: CliOutput,
    private readonly agents: () => readonly AgentView[],
  ) {}

  start(intervalMs = 120): void {
    this.#timer = setInterval(() => this.#draw(), intervalMs);
    this.#timer.unref();
    this.#draw();
  }

  /** Prints a line above the status line (which is drawn again only while it runs: after `stop` it is gone). */
  print(out: CliOutput, line: string): void {
    this.#clear();
    out.write(`${line}\n`);
    if (this.#timer !== undefined) this.#draw();
  }

  /**
   * News shown first on the line (a model call being retried) until replaced or cleared with
   * undefined; drawn at once, so it shows even between two ticks.
   */
  notice(text: string | undefined): void {
    if (text === this.#notice) return;
    this.#notice = text;
    if (this.#timer !== undefined) this.#draw();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clear();
  }

  #draw(): void {
    const live = this.agents().filter((agent) => agent.status === 'active');
    // `×3`: turns of three sessions at once (lanes); `(+2)`: two Tasks waiting.
    const parts = live.map(
      (agent) =>
        `${agent.id}: ${agent.state.replace(/^running\.(turn\.)?/, '')}${agent.lanes > 1 ? ` ×${agent.lanes}` : ''}${agent.queued > 0 ? ` (+${agent.queued})` : ''}`,
    );
    const frame = frames[this.#frame++ % frames.length] ?? '';
    const text = `${frame} ${[this.#notice, ...parts].filter((part) => part !== undefined).join(' · ')}`;
    const columns = this.stream.columns ?? 0;
    const width = columns > 0 ? columns - 1 : 100;
    this.stream.write(`\r\x1b[2K${text.slice(0, width)}`);
    this.#shown = true;
  }

  #clear(): void {
    if (!this.#shown) return;
    this.stream.write('\r\x1b[2K');
    this.#shown = false;
  }
}

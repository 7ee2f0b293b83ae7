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
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly stream: CliOutput,
    private readonly agents: () => readonly AgentView[],
  ) {}

  start(intervalMs = 120): void {
    this.#timer = setInterval(() => this.#draw(), intervalMs);
    this.#timer.unref();
  }

  /** Prints a line above the status line. */
  print(out: CliOutput, line: string): void {
    this.#clear();
    out.write(`${line}\n`);
    this.#draw();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#clear();
  }

  #draw(): void {
    const live = this.agents().filter((agent) => agent.status === 'active');
    const parts = live.map((agent) => `${agent.id}: ${agent.state.replace(/^running\.(turn\.)?/, '')}${agent.queued > 0 ? ` (+${agent.queued})` : ''}`);
    const frame = frames[this.#frame++ % frames.length] ?? '';
    const text = `${frame} ${parts.join(' · ')}`;
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

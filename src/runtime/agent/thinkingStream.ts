import { ImportanceTagStripper } from '../../llm/index.js';
import { Actions, type Task, observationTask } from '../../task/index.js';
import type { Agent } from './agent.js';

/**
 * What observers see of a model reply as it streams (`node.thinking`): its text without
 * `<imp:X/>` tags, redacted as it arrives (a secret split across two fragments is whole in
 * neither). While a guardrail checks the agent's answers, the text is held instead, and let out
 * only once the reply turns out to be tool calls or its answer has passed: nothing a guardrail
 * blocks is seen before it decides.
 */
export class ThinkingStream {
  readonly #stripper = new ImportanceTagStripper();
  readonly #visible;
  readonly #held: string[] | null;

  constructor(
    private readonly agent: Agent,
    private readonly task: Task,
    hold: boolean,
  ) {
    const { bus, redactor } = agent.env;
    this.#visible = bus.wants('observer', Actions.thinking) ? redactor.stream() : undefined;
    this.#held = hold && this.#visible !== undefined ? [] : null;
  }

  /** A fragment of the reply's text. */
  push(text: string): void {
    this.#show(this.#visible?.push(this.#stripper.push(text)) ?? '');
  }

  /** The stream failed and is retried from the start: observers are told; held text is dropped. */
  restart(attempt: number): void {
    this.#stripper.flush();
    this.#visible?.flush();
    if (this.#held === null) this.#publish({ text: '', restart: attempt });
    else this.#held.length = 0;
  }

  /** The reply is complete: what the stripper and the redactor still hold goes out (or is held). */
  end(): void {
    this.#show(this.#visible?.push(this.#stripper.flush()) ?? '');
    this.#show(this.#visible?.flush() ?? '');
  }

  /** Lets out what was held (the reply was tool calls, or its answer passed). */
  release(): void {
    const text = this.#held?.splice(0).join('') ?? '';
    if (text !== '') this.#publish({ text });
  }

  #show(safe: string): void {
    if (safe === '') return;
    if (this.#held === null) this.#publish({ text: safe });
    else this.#held.push(safe);
  }

  #publish(parameters: Record<string, string | number>): void {
    observe(this.agent, this.task, Actions.thinking, parameters);
  }
}

/**
 * Publishes an observation about the turn on `task` (thinking text, a tool call), addressed to
 * no one in particular; not even made when nobody would see it.
 */
export function observe(agent: Agent, task: Task, action: string, parameters: Record<string, string | number>): void {
  const { bus } = agent.env;
  if (bus.wants('observer', action)) bus.publish(observationTask({ from: agent.id, about: task, action, parameters }, agent.env));
}

import { type TaskInit, createTask, replyTo, sequentialIds } from '../../src/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import type { Task } from '../../src/task/index.js';

/**
 * Makes the Tasks an agent's memory holds, with deterministic ids (`t1`, `t2`, …) and times, so a
 * test can hand the context builder the exchanges of several sessions.
 */
export class SessionTasks {
  readonly #deps = { ids: sequentialIds(), clock: new SimulatedClock() };

  /** Any Task (a notice, a progress update) made as the runtime makes them. */
  make(init: TaskInit): Task {
    this.#deps.clock.advance(1);
    return createTask(init, this.#deps);
  }

  /** A request from `from` to `to` in `sessionId`. */
  request(from: string, to: string, sessionId: string, text: string, action = 'execute'): Task {
    return this.make({ from, to, action, sessionId, parameters: { text } });
  }

  /** The answer to `request`, from its receiver back to its sender. */
  reply(request: Task, result: string, status: 'completed' | 'failed' = 'completed'): Task {
    this.#deps.clock.advance(1);
    const error = status === 'failed' ? { code: 'tool_error' as const, message: result } : null;
    return replyTo(request, { status, result: status === 'failed' ? null : result, error }, this.#deps.clock);
  }

  /** A request `from` sends `to` and `to`'s answer: two Tasks, oldest first. */
  exchange(from: string, to: string, sessionId: string, text: string, answer: string): [Task, Task] {
    const request = this.request(from, to, sessionId, text);
    return [request, this.reply(request, answer)];
  }
}

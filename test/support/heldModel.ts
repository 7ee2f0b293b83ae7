import { onAbort } from '../../src/abort.js';
import type { ChatDelta, ChatRequest, ModelClient } from '../../src/llm/index.js';
import { readPrompt } from '../../src/task/index.js';
import { type ScriptReply, ScriptedModel } from '../../src/testing.js';

/** The Task an agent's turn is working on: the last prompt in the request, and the model's replies since. */
function currentTask(request: ChatRequest): { readonly taskId: string; readonly text: string; readonly replies: number } {
  const start = request.messages.findLastIndex((message) => message.role === 'user');
  const prompt = readPrompt(request.messages[start]?.content ?? '');
  const replies = request.messages.slice(start + 1).filter((message) => message.role === 'assistant').length;
  return { taskId: prompt?.taskId ?? '?', text: prompt?.text ?? '', replies };
}

/** `spawn <n>`: create the role `worker`, then spawn n of them at once, then say so. */
function spawnStep(n: number, replies: number): ScriptReply {
  if (replies === 0) return { toolCalls: [{ name: 'create_role', arguments: { name: 'worker', prompt: 'You do work.' } }] };
  if (replies === 1) return { toolCalls: Array.from({ length: n }, () => ({ name: 'spawn_agent', arguments: { role: 'worker' } })) };
  return { text: 'spawned' };
}

/**
 * A model whose answers the test lets out: `spawn <n>` is answered at once (see `spawnStep`),
 * any other Task with `done: <taskId>`, but only once `release` is called. Until then each such
 * call is held, as a slow model's would be, and one never released hangs until its turn is
 * aborted. The replies stream through a `ScriptedModel`, as any scripted reply does.
 */
export class HeldModel implements ModelClient {
  readonly name = 'held';
  readonly scripted = true;
  readonly #script = new ScriptedModel([]);
  #release: () => void = () => undefined;
  readonly #released = new Promise<void>((resolve) => (this.#release = resolve));
  #isReleased = false;
  #holding = 0;
  readonly #watchers = new Set<() => void>();

  /** Calls held right now. */
  get holding(): number {
    return this.#holding;
  }

  /** Lets every held call answer, and every later one at once. */
  release(): void {
    this.#isReleased = true;
    this.#release();
  }

  /** Resolves once `count` calls are held at the same time. */
  async untilHolding(count: number): Promise<void> {
    while (this.#holding < count) await new Promise<void>((resolve) => this.#watchers.add(resolve));
  }

  async *chat(request: ChatRequest, options: Parameters<ModelClient['chat']>[1] = {}): AsyncGenerator<ChatDelta> {
    const task = currentTask(request);
    const spawn = /^spawn (\d+)$/.exec(task.text);
    if (spawn === null) await this.#held(options.signal);
    this.#script.push(spawn === null ? { text: `done: ${task.taskId}` } : spawnStep(Number(spawn[1]), task.replies));
    yield* this.#script.chat(request, options);
  }

  embed(texts: readonly string[]): Promise<number[][]> {
    return this.#script.embed(texts);
  }

  async #held(signal: AbortSignal | undefined): Promise<void> {
    if (this.#isReleased) return;
    this.#holding += 1;
    for (const watcher of this.#watchers) watcher();
    this.#watchers.clear();
    try {
      await new Promise<void>((resolve, reject) => {
        const stop = signal === undefined ? () => undefined : onAbort(signal, () => reject(signal.reason as Error));
        void this.#released.then(() => {
          stop();
          resolve();
        });
      });
    } finally {
      this.#holding -= 1;
    }
  }
}

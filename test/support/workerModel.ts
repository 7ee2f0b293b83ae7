import type { ChatDelta, ChatRequest, ModelClient } from '../../src/llm/index.js';
import { readPrompt } from '../../src/task/index.js';
import { type ScriptStep, ScriptedModel } from '../../src/testing.js';

/**
 * How a worker answers: a Task `work <n>` after n rounds of the `wait_ticks` tool, naming the Task
 * it answers (`done: <taskId>`); a Task `hang` never (its model call waits until it is aborted).
 */
function workerStep(request: ChatRequest): ScriptStep {
  const messages = request.messages;
  const start = messages.findLastIndex((message) => message.role === 'user');
  const prompt = readPrompt(messages[start]?.content ?? '');
  if (prompt?.text === 'hang') return { hang: true };
  const rounds = Number(/work (\d+)/.exec(prompt?.text ?? '')?.[1] ?? 0);
  const done = messages.slice(start + 1).filter((message) => message.role === 'tool').length;
  return done < rounds ? { toolCalls: [{ name: 'wait_ticks', arguments: { ticks: 2 } }] } : { text: `done: ${prompt?.taskId ?? '?'}` };
}

/** A model that answers every call with the step `reply` computes from its request, however many there are; it records each request. */
export class ReplyingModel implements ModelClient {
  readonly name: string = 'replying';
  readonly scripted = true;
  readonly #script = new ScriptedModel([]);

  constructor(private readonly reply: (request: ChatRequest) => ScriptStep) {}

  get requests(): readonly ChatRequest[] {
    return this.#script.requests;
  }

  chat(request: ChatRequest, options?: Parameters<ModelClient['chat']>[1]): AsyncIterable<ChatDelta> {
    this.#script.push(this.reply(request));
    return this.#script.chat(request, options);
  }

  embed(texts: readonly string[]): Promise<number[][]> {
    return this.#script.embed(texts);
  }
}

/** A model that answers every call as `workerStep` says. */
export class WorkerModel extends ReplyingModel {
  override readonly name = 'worker';

  constructor() {
    super(workerStep);
  }
}

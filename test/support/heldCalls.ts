import type { ChatDelta, ChatRequest, ModelClient, ScriptReply } from '../../src/llm/index.js';
import { defaultHashedNgramDimension, hashedNgramVector } from '../../src/hashedNgramVector.js';
import { streamReply } from '../../src/llm/scriptedReply.js';
import { readPrompt } from '../../src/task/index.js';

/** One model call held until the test lets it answer. */
export interface HeldCall {
  readonly request: ChatRequest;
  /** The Task whose turn made the call (its prompt is the last user message), and that prompt's text. */
  readonly taskId: string;
  readonly text: string;
  /** Whether the test has let it answer. */
  readonly released: boolean;
  /** Lets the call answer: `reply`, or `answer to <text>`. */
  release(reply?: ScriptReply): void;
}

/**
 * A model whose every call waits for the test's signal, one call at a time, so a test sees which
 * turns are in flight at once (the calls not yet released) without a clock: each call is answered
 * only when the test releases it, and an abort (the turn stopped) ends it as any model call.
 * (`HeldModel` holds every call until one release for all.)
 */
export class HeldCallsModel implements ModelClient {
  readonly name = 'held-calls';
  readonly scripted = true;
  readonly calls: HeldCall[] = [];

  /** Calls made and not yet released, oldest first. */
  get waiting(): HeldCall[] {
    return this.calls.filter((call) => !call.released);
  }

  /** The waiting call of the turn on `taskId`. */
  callOf(taskId: string): HeldCall | undefined {
    return this.waiting.find((call) => call.taskId === taskId);
  }

  async *chat(request: ChatRequest, options: { signal?: AbortSignal } = {}): AsyncGenerator<ChatDelta> {
    const prompt = readPrompt(request.messages.findLast((message) => message.role === 'user')?.content ?? '');
    let release: (reply: ScriptReply) => void = () => undefined;
    const answer = new Promise<ScriptReply>((resolve) => {
      release = resolve;
    });
    const text = prompt?.text ?? '';
    const call = {
      request,
      taskId: prompt?.taskId ?? '',
      text,
      released: false,
      release: (reply: ScriptReply = { text: `answer to ${text}` }) => {
        call.released = true;
        release(reply);
      },
    };
    this.calls.push(call);
    const reply = await new Promise<ScriptReply>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted === true) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      void answer.then(resolve);
    });
    yield* streamReply(reply, options.signal, `held_${this.calls.length}`);
  }

  embed(texts: readonly string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => Array.from(hashedNgramVector(text, defaultHashedNgramDimension))));
  }
}

/** The text of the user prompts in a model request, oldest first: which Tasks its context holds. */
export function promptsIn(request: ChatRequest | undefined): string[] {
  return (request?.messages ?? []).flatMap((message) => (message.role === 'user' ? [readPrompt(message.content)?.text ?? message.content] : []));
}

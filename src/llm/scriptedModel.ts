import { defaultHashedNgramDimension, hashedNgramVector } from '../hashedNgramVector.js';
import type { ChatDelta, ChatRequest } from './messages.js';
import type { ChatOptions, ModelClient } from './modelClient.js';
import { type ScriptReply, streamReply } from './scriptedReply.js';

/**
 * A step of a script: a reply, a reply computed from the request, an error to throw, a call
 * that hangs until it is aborted, or raw stream chunks.
 */
export type ScriptStep =
  | ScriptReply
  | ((request: ChatRequest) => ScriptReply)
  | { readonly error: Error }
  | { readonly hang: true }
  /** Raw stream pieces, sent as given (e.g. to test fragment merging or a stream that errors midway). */
  | { readonly chunks: readonly (ChatDelta | { readonly error: Error })[] };

/**
 * A deterministic model for tests: it answers each call with the next step of its script and
 * records every request, so a test can assert what the agent sent and that the script was used up.
 */
export class ScriptedModel implements ModelClient {
  readonly name: string;
  readonly scripted = true;
  readonly requests: ChatRequest[] = [];
  readonly #steps: ScriptStep[];

  constructor(steps: readonly ScriptStep[], options: { name?: string } = {}) {
    this.#steps = [...steps];
    this.name = options.name ?? 'scripted';
  }

  /** Steps not yet used. */
  get remaining(): number {
    return this.#steps.length;
  }

  /** Throws unless every step of the script was used. */
  assertUsedUp(): void {
    if (this.#steps.length > 0) throw new Error(`scripted model: ${this.#steps.length} step(s) never used`);
  }

  /** Adds steps to the end of the script. */
  push(...steps: ScriptStep[]): void {
    this.#steps.push(...steps);
  }

  /** Offline embeddings: deterministic hashed word and character n-grams (see hashedNgramVector). */
  embed(texts: readonly string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => Array.from(hashedNgramVector(text, defaultHashedNgramDimension))));
  }

  async *chat(request: ChatRequest, options: ChatOptions = {}): AsyncGenerator<ChatDelta> {
    this.requests.push(request);
    const step = this.#steps.shift();
    if (step === undefined) throw new Error(`scripted model: script exhausted at call ${this.requests.length}`);
    if (typeof step === 'function') {
      yield* streamReply(step(request), options.signal, `call_${this.requests.length}`);
    } else if ('error' in step) {
      throw step.error;
    } else if ('chunks' in step) {
      for (const chunk of step.chunks) {
        options.signal?.throwIfAborted();
        if ('error' in chunk) throw chunk.error;
        yield chunk;
      }
    } else if ('hang' in step) {
      await new Promise<never>((_, reject) => {
        const signal = options.signal;
        if (signal === undefined) return;
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    } else {
      yield* streamReply(step, options.signal, `call_${this.requests.length}`);
    }
  }
}

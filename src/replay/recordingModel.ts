import { describeError, errorCodeOf } from '../errors.js';
import type { ChatDelta, ChatRequest, ModelClient } from '../llm/index.js';
import type { ChatOptions, EmbedOptions } from '../llm/modelClient.js';
import type { Redactor } from '../task/index.js';
import { type RequestKeys, storedRequestJson } from './requestKey.js';

/** What a recording model needs of its recorder: where the line goes, and whether the recording is full. */
export interface ModelRecordSink {
  readonly keys: RequestKeys;
  readonly redactor: Redactor;
  /** Throws `recording_limit` once the recording is full: a call that could not be recorded is not made. */
  requireRoom(): void;
  line(text: string): void;
  /** The number of each message (canonical JSON, redacted) in the recording, its `msg` line written the first time. */
  messageRefs(messages: readonly string[]): number[];
}

/** A delta as recorded: the text a model wrote, redacted. */
function recordedDelta(delta: ChatDelta, redactor: Redactor): ChatDelta {
  switch (delta.type) {
    case 'text':
      return { type: 'text', text: redactor.text(delta.text) };
    case 'tool_call':
      return delta.arguments === undefined ? delta : { ...delta, arguments: redactor.text(delta.arguments) };
    case 'finish':
    case 'restart':
      return delta;
  }
}

/**
 * A model whose every call is recorded: the key of its request, the request, and the deltas of its
 * reply as they streamed (a retry's restart among them), or how it failed. It wraps the model as
 * agents see it, retries included, so a replay hands back what the turn got.
 */
export class RecordingModel implements ModelClient {
  readonly name: string;
  readonly scripted: boolean;

  constructor(
    readonly inner: ModelClient,
    private readonly sink: ModelRecordSink,
  ) {
    this.name = inner.name;
    this.scripted = inner.scripted;
  }

  chat(request: ChatRequest, options: ChatOptions = {}): AsyncIterable<ChatDelta> {
    return { [Symbol.asyncIterator]: () => this.#call(request, options) };
  }

  /**
   * One call, begun at its first `next()` (the room checked, the `ask` line written, the inner
   * model asked) and recorded once its stream ends or fails; a consumer that stops early records
   * nothing more. Each delta is the inner stream's own result passed on: no async generator in
   * between, whose every yield costs several promises.
   */
  #call(request: ChatRequest, options: ChatOptions): AsyncIterator<ChatDelta> {
    const { sink } = this;
    const deltas: ChatDelta[] = [];
    let inner: AsyncIterator<ChatDelta> | undefined;
    let over = false;
    let write = (_failure?: unknown): void => undefined;
    const start = (): AsyncIterator<ChatDelta> => {
      sink.requireRoom();
      const key = sink.keys.key(request, this.name);
      sink.line(`{"k":"ask","digest":"${key.digest}"}`);
      write = (failure) => {
        over = true;
        const error =
          failure === undefined
            ? ''
            : `,"error":${JSON.stringify({ code: options.signal?.aborted === true ? 'aborted' : errorCodeOf(failure), message: sink.redactor.text(describeError(failure)) })}`;
        sink.line(
          `{"k":"model","digest":"${key.digest}","request":${storedRequestJson(key, sink.messageRefs(key.messages))},"deltas":${JSON.stringify(deltas)}${error}}`,
        );
      };
      try {
        return this.inner.chat(request, options)[Symbol.asyncIterator]();
      } catch (error) {
        write(error);
        throw error;
      }
    };
    const passOn = (result: IteratorResult<ChatDelta>): IteratorResult<ChatDelta> => {
      if (result.done === true) write();
      else deltas.push(recordedDelta(result.value, sink.redactor));
      return result;
    };
    const failed = (error: unknown): never => {
      write(error);
      throw error;
    };
    return {
      next: () => {
        if (over) return Promise.resolve({ done: true, value: undefined });
        try {
          inner ??= start();
        } catch (error) {
          over = true;
          return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
        return inner.next().then(passOn, failed);
      },
      return: async (): Promise<IteratorResult<ChatDelta>> => {
        over = true;
        await inner?.return?.();
        return { done: true, value: undefined };
      },
    };
  }

  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]> {
    return this.inner.embed(texts, options);
  }
}

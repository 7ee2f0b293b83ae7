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
  /** The number of a message (canonical JSON, redacted) in the recording, its `msg` line written the first time. */
  messageRef(message: string): number;
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

  async *chat(request: ChatRequest, options: ChatOptions = {}): AsyncIterable<ChatDelta> {
    const { sink } = this;
    sink.requireRoom();
    const key = sink.keys.key(request, this.name);
    sink.line(`{"k":"ask","digest":"${key.digest}"}`);
    const deltas: ChatDelta[] = [];
    const write = (failure?: unknown): void => {
      const error =
        failure === undefined
          ? ''
          : `,"error":${JSON.stringify({ code: options.signal?.aborted === true ? 'aborted' : errorCodeOf(failure), message: sink.redactor.text(describeError(failure)) })}`;
      sink.line(
        `{"k":"model","digest":"${key.digest}","request":${storedRequestJson(key, (message) => sink.messageRef(message))},"deltas":${JSON.stringify(deltas)}${error}}`,
      );
    };
    try {
      for await (const delta of this.inner.chat(request, options)) {
        deltas.push(recordedDelta(delta, sink.redactor));
        yield delta;
      }
    } catch (error) {
      write(error);
      throw error;
    }
    write();
  }

  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]> {
    return this.inner.embed(texts, options);
  }
}

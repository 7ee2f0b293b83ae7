import type { ChatDelta, ChatRequest, ModelClient } from '../llm/index.js';
import type { ChatOptions } from '../llm/modelClient.js';
import { ErrorCodeSchema, TroupeError } from '../errors.js';
import type { RunRecord } from './recordingFormat.js';
import type { RequestKey } from './requestKey.js';

/** A model call as a replay hands it back. */
export interface ReplayedCall {
  readonly deltas: readonly ChatDelta[];
  readonly error?: { readonly code: string; readonly message: string } | undefined;
  /** The recorded call, a landmark of the replay's clock. */
  readonly record: RunRecord;
}

/**
 * What a replay model asks of its replayer: the key of a request, the recorded call it stands for
 * (throwing `replay_diverged` when there is none), and to be told when the call has been answered.
 */
export interface ModelReplaySource {
  key(request: ChatRequest, model: string): RequestKey;
  take(key: RequestKey): ReplayedCall;
  answered(call: ReplayedCall): void;
}

/** Resolves never, rejects with the signal's reason once it aborts: how a call the run saw aborted waits in a replay. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal === undefined) return;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * A model that answers from a recording, with no network: each request is looked up by its key
 * and its recorded reply streamed back delta for delta, or its recorded failure thrown. A request
 * the recording does not have stops the replay (`replay_diverged`, with a diff against the nearest
 * recorded one). A call the run saw aborted waits for the same abort.
 */
export class ReplayModel implements ModelClient {
  constructor(
    readonly name: string,
    readonly scripted: boolean,
    private readonly source: ModelReplaySource,
  ) {}

  chat(request: ChatRequest, options: ChatOptions = {}): AsyncIterable<ChatDelta> {
    return { [Symbol.asyncIterator]: () => this.#replayed(request, options) };
  }

  /** One call, looked up at its first `next()`; an iterator of the recorded deltas rather than an async generator, whose every yield costs several promises. */
  #replayed(request: ChatRequest, options: ChatOptions): AsyncIterator<ChatDelta> {
    let call: ReplayedCall | undefined;
    let next = 0;
    let over = false;
    const step = async (): Promise<IteratorResult<ChatDelta>> => {
      if (call === undefined) {
        // Failing here (a divergence, the abort a call waits for) ends the stream.
        over = true;
        call = this.source.take(this.source.key(request, this.name));
        if (call.error?.code === 'aborted') await untilAborted(options.signal);
        over = false;
      }
      const delta = call.deltas[next++];
      if (delta !== undefined) return { done: false, value: delta };
      over = true;
      this.source.answered(call);
      if (call.error !== undefined) {
        const code = ErrorCodeSchema.safeParse(call.error.code);
        throw new TroupeError(code.success ? code.data : 'model_error', call.error.message, { context: { model: this.name, replayed: true } });
      }
      return { done: true, value: undefined };
    };
    return {
      next: () => (over ? Promise.resolve({ done: true, value: undefined }) : step()),
      return: () => {
        over = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  embed(): Promise<number[][]> {
    return Promise.reject(new TroupeError('replay_diverged', `the replay asked ${this.name} for embeddings, which a recording does not keep`));
  }
}

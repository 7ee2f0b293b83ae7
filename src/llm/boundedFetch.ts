import { isEventStream } from './eventStreamResponse.js';
import { replyTooLarge } from './modelLimits.js';

/**
 * `fetch` for the `openai` client, with every body but an event stream's cut off past
 * `maxReplyBytes`: the ones the SDK reads whole by itself (an embedding, an error's body, a page
 * where a stream was asked for) would otherwise be read into memory whatever their size. A
 * streamed completion's body is counted by `CompletionChunks` instead, at no cost per chunk.
 */
export function boundedFetch(maxReplyBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null || isEventStream(response.headers.get('content-type'))) return response;
    let bytes = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.length;
          if (bytes > maxReplyBytes) controller.error(replyTooLarge(maxReplyBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

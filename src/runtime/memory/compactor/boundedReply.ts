import type { Clock } from '../../../clock.js';
import { TroupeError } from '../../../errors.js';
import type { ChatRequest, ModelClient } from '../../../llm/index.js';

/** The bounds of one call: its time on the clock, and the characters of its reply that are read. */
export interface ReplyBounds {
  readonly timeoutMs: number;
  readonly maxReplyChars: number;
  readonly clock: Clock;
}

/**
 * The text of one model reply, bounded: `request.maxTokens` asks the model to stop, an abort on
 * the clock after `timeoutMs` stops the call (the model-call slot and retries included, since
 * an aborted call is never retried), and reading stops past `maxReplyChars`. A reply that calls
 * a tool (none was offered) is refused. Every refusal is a `model_error` saying which bound.
 */
export async function boundedReply(model: ModelClient, request: ChatRequest, bounds: ReplyBounds): Promise<string> {
  const timedOut = new AbortController();
  const timer = bounds.clock.setTimeout(
    () => timedOut.abort(new TroupeError('model_error', `no reply within ${bounds.timeoutMs} ms (compactionModelTimeoutMs)`)),
    bounds.timeoutMs,
  );
  let text = '';
  try {
    // Breaking out of the loop closes the stream, which gives its slot back and cancels the body.
    for await (const delta of model.chat(request, { signal: timedOut.signal })) {
      if (delta.type === 'restart') text = '';
      else if (delta.type === 'tool_call')
        throw new TroupeError('model_error', `the reply called a tool (${delta.name ?? 'unnamed'}) where text was asked for`);
      else if (delta.type === 'text') text += delta.text;
      if (text.length > bounds.maxReplyChars) {
        throw new TroupeError('model_error', `the reply is longer than ${bounds.maxReplyChars} characters (compactionMaxReplyChars)`);
      }
    }
  } catch (error) {
    throw timedOut.signal.aborted ? timedOut.signal.reason : error;
  } finally {
    bounds.clock.clearTimeout(timer);
  }
  // An aborted stream may end quietly instead of failing.
  if (timedOut.signal.aborted) throw timedOut.signal.reason;
  return text;
}

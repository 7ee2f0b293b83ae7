import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../clock.js';
import type { ChatRequest } from '../messages.js';
import { WireChatRequestSchema, fromWireRequest } from '../openaiWire.js';
import { type CompletionContext, chunksOf, completionOf, promptTokensOf } from './completionBodies.js';
import { sendFailure } from './failures.js';
import { describeInvalidBody, eventOf, sendError, sendEventStream, sendJson, sendLargeEventStream, startEventStream } from './http.js';
import type { Plan } from './serverSteps.js';

const notJson = '{"id": "chatcmpl-troupe", "choices": [ this is not JSON';

/** What answering a chat call needs from the server around it. */
export interface ChatDeps {
  readonly clock: Clock;
  readonly chunkDelayMs: number;
  /** Records a valid call and decides its answer; `seq` numbers the call from 1. */
  readonly next: (request: ChatRequest) => { readonly seq: number; readonly plan: Plan };
}

/** Answers `POST /v1/chat/completions`: a 400 for an invalid body, else what the call's plan says. */
export async function answerChat(body: unknown, request: IncomingMessage, response: ServerResponse, deps: ChatDeps): Promise<void> {
  const parsed = WireChatRequestSchema.safeParse(body);
  if (!parsed.success) {
    const { message, param } = describeInvalidBody(parsed.error, body);
    sendError(response, 400, message, { param });
    return;
  }
  const chatRequest = fromWireRequest(parsed.data);
  const { seq, plan } = deps.next(chatRequest);
  const context: CompletionContext = {
    id: `chatcmpl-troupe-${seq}`,
    created: Math.floor(deps.clock.now() / 1000),
    model: parsed.data.model,
    callIdPrefix: `call_${seq}`,
    promptTokens: promptTokensOf(chatRequest),
  };
  const streamed = parsed.data.stream === true;
  const stream = (items: Iterable<unknown>): Promise<void> => sendEventStream(response, items, deps.clock, deps.chunkDelayMs);
  switch (plan.kind) {
    case 'reply':
      if (streamed) await stream(chunksOf(plan.reply, context, parsed.data.stream_options?.include_usage === true));
      else sendJson(response, 200, completionOf(plan.reply, context));
      return;
    case 'error':
    case 'hang':
    case 'drop':
    case 'raw':
      sendFailure(plan, request, response);
      return;
    case 'malformed':
      if (streamed) {
        await stream([chunksOf({}, context, false).next().value, notJson]);
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(notJson);
      }
      return;
    case 'stall':
      // The first chunks, then silence on an open connection: only the client's timeout ends it.
      startEventStream(response);
      for (const chunk of chunksOf({ text: plan.text }, context, false)) {
        if (chunk.choices[0]?.finish_reason !== null) break;
        response.write(eventOf(chunk));
      }
      return;
    case 'large':
      await sendLargeEventStream(response, context, plan.bytes);
      return;
    default: {
      const never: never = plan;
      throw new Error(`unknown plan ${JSON.stringify(never)}`);
    }
  }
}

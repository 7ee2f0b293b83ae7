import type { IncomingMessage, ServerResponse } from 'node:http';
import { WireEmbeddingsRequestSchema, embeddingsOf } from './embeddingBodies.js';
import { sendFailure } from './failures.js';
import { describeInvalidBody, sendError, sendJson } from './http.js';
import type { EmbeddingPlan } from './serverSteps.js';

/** Answers `POST /v1/embeddings`: a 400 for an invalid body, else what the call's plan says (`next` counts the call). */
export function answerEmbeddings(body: unknown, request: IncomingMessage, response: ServerResponse, next: () => EmbeddingPlan): void {
  const parsed = WireEmbeddingsRequestSchema.safeParse(body);
  if (!parsed.success) {
    const { message, param } = describeInvalidBody(parsed.error, body);
    sendError(response, 400, message, { param });
    return;
  }
  const plan = next();
  if (plan.kind === 'vectors') sendJson(response, 200, embeddingsOf(parsed.data, plan));
  else sendFailure(plan, request, response);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './http.js';
import type { FailurePlan } from './serverSteps.js';

/** Answers a call the way a failure step says, the same for every endpoint. */
export function sendFailure(plan: FailurePlan, request: IncomingMessage, response: ServerResponse): void {
  switch (plan.kind) {
    case 'error':
      sendError(response, plan.status, plan.message, {
        headers: plan.retryAfter === undefined ? {} : { 'retry-after': String(plan.retryAfter) },
        ...(plan.code === undefined ? {} : { code: plan.code }),
      });
      return;
    case 'hang':
      return; // Never answered: the client aborts, or close() destroys the socket.
    case 'drop':
      request.socket.destroy();
      return;
    case 'raw':
      response.writeHead(plan.answer.status ?? 200, plan.answer.contentType === undefined ? {} : { 'content-type': plan.answer.contentType });
      response.end(plan.answer.body);
      return;
    default: {
      const never: never = plan;
      throw new Error(`unknown plan ${JSON.stringify(never)}`);
    }
  }
}

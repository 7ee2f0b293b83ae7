import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { roundTripAgainstSubmit } from './protocolRoundTrip.js';
import type { Row } from './report.js';

/**
 * A2A `SendMessage` round trips (the official SDK's client, blocking until the task completes)
 * against the same work through `POST /api/submit` and the answer awaited, on one `troupe serve`
 * in the same run: what the A2A layer adds to a requirement's way in and its answer's way out.
 */
export async function a2aRoundTrip(): Promise<Row[]> {
  const row = {
    benchmark: 'A2A SendMessage round trip (per request)',
    what: "the SDK's client's blocking SendMessage until the task is completed",
    goal: 1.3,
  };
  const measured = await roundTripAgainstSubmit(row, async (url) => {
    const client = await new ClientFactory().createFromUrl(url);
    return {
      request: async () => {
        const message = {
          messageId: randomUUID(),
          contextId: '',
          taskId: '',
          role: Role.ROLE_USER,
          parts: [],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        };
        const reply = await client.sendMessage({
          tenant: '',
          message: { ...message, parts: [{ content: { $case: 'text', value: 'hello' }, mediaType: 'text/plain', filename: '', metadata: undefined }] },
          configuration: undefined,
          metadata: undefined,
        });
        if (!('status' in reply) || reply.status?.state !== TaskState.TASK_STATE_COMPLETED)
          throw new Error(`the A2A bench task did not complete: ${JSON.stringify(reply)}`);
      },
      close: () => Promise.resolve(),
    };
  });
  return [measured];
}

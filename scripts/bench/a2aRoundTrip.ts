import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createRuntime } from '../../src/index.js';
import { createHttpServer } from '../../src/server/index.js';
import { ScriptedModel } from '../../src/testing.js';
import type { ModelClient } from '../../src/llm/index.js';
import { streamReply } from '../../src/llm/scriptedReply.js';
import { sized } from './benchSize.js';
import { elapsedMs, median } from './measure.js';
import { type Row, duration } from './report.js';

const schedule = sized({ blocks: 5, requests: 100 }, { blocks: 1, requests: 3 });

/** A model that answers every turn at once: what is measured is the way in and out, not a model. */
function answeringModel(): ModelClient {
  const embedder = new ScriptedModel([]);
  return {
    name: 'answers-at-once',
    scripted: true,
    async *chat(_request, options) {
      yield* streamReply({ text: 'ok' }, options?.signal);
    },
    embed: (texts) => embedder.embed(texts),
  };
}

/**
 * A2A `SendMessage` round trips (the official SDK's client, blocking until the task completes)
 * against the same work through `POST /api/submit` and the answer awaited, on one `troupe serve`
 * (HTTP service over loopback) in the same run: what the A2A layer adds to a requirement's way in
 * and its answer's way out.
 */
export async function a2aRoundTrip(): Promise<Row[]> {
  const rt = await createRuntime({ model: answeringModel() });
  const server = createHttpServer(rt);
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  const client = await new ClientFactory().createFromUrl(url);
  const viaA2a = async (): Promise<void> => {
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
  };
  const viaSubmit = async (): Promise<void> => {
    const response = await fetch(`${url}/api/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hello"}' });
    const { taskId } = (await response.json()) as { taskId: string };
    const answer = await rt.waitForAnswer(taskId, { timeoutMs: 60_000 });
    if (answer.status !== 'completed') throw new Error(`the submit bench task did not complete: ${answer.status}`);
  };
  const perRequest = async (run: () => Promise<void>): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < schedule.requests; i++) await run();
    return elapsedMs(start) / schedule.requests;
  };
  const times = { a2a: [] as number[], submit: [] as number[] };
  try {
    await viaA2a();
    await viaSubmit();
    for (let block = 0; block < schedule.blocks; block++) {
      times.a2a.push(await perRequest(viaA2a));
      times.submit.push(await perRequest(viaSubmit));
    }
  } finally {
    await server.close();
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
  const [troupe, raw] = [median(times.a2a), median(times.submit)];
  return [
    {
      benchmark: 'A2A SendMessage round trip (per request)',
      troupe: duration(troupe),
      raw: duration(raw),
      ratio: troupe / raw,
      notes: `${schedule.requests} requests in a row, each a new task answered at once by the model: the SDK's client's blocking SendMessage until the task is completed, against POST /api/submit and the answer awaited (rt.waitForAnswer) on the same service; medians of ${schedule.blocks} alternated blocks; goal ≤ 1.3×: ${troupe / raw <= 1.3 ? 'met' : 'NOT met'} in this run`,
    },
  ];
}

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

/** A protocol's client of a served society: one request that submits a requirement and returns once it is answered. */
export interface ProtocolClient {
  request(): Promise<void>;
  close(): Promise<void>;
}

/** The row of a protocol's round trips: `benchmark` its name, `what` the protocol's request, `goal` the ratio it should stay under. */
export interface RoundTripRow {
  readonly benchmark: string;
  readonly what: string;
  readonly goal?: number;
}

/**
 * A protocol's round trips (`open` makes its client of the service at `url`) against the same work
 * through `POST /api/submit` and the answer awaited (`rt.waitForAnswer`), on one `troupe serve`
 * (HTTP service over loopback) whose model answers at once, in alternated blocks of the same run:
 * what the protocol's layer adds to a requirement's way in and its answer's way out.
 */
export async function roundTripAgainstSubmit(row: RoundTripRow, open: (url: string) => Promise<ProtocolClient>): Promise<Row> {
  const rt = await createRuntime({ model: answeringModel() });
  const server = createHttpServer(rt);
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
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
  const times = { protocol: [] as number[], submit: [] as number[] };
  let client: ProtocolClient | undefined;
  try {
    client = await open(url);
    const viaProtocol = client.request.bind(client);
    await viaProtocol();
    await viaSubmit();
    for (let block = 0; block < schedule.blocks; block++) {
      times.protocol.push(await perRequest(viaProtocol));
      times.submit.push(await perRequest(viaSubmit));
    }
  } finally {
    await client?.close();
    await server.close();
    await rt.shutdown({ drainTimeoutMs: 0 });
  }
  const [troupe, raw] = [median(times.protocol), median(times.submit)];
  const how = `${schedule.requests} requests in a row, each a new task answered at once by the model; medians of ${schedule.blocks} alternated blocks`;
  const goal = row.goal === undefined ? '' : `; goal ≤ ${row.goal}×: ${troupe / raw <= row.goal ? 'met' : 'NOT met'} in this run`;
  return {
    benchmark: row.benchmark,
    troupe: duration(troupe),
    raw: duration(raw),
    ratio: troupe / raw,
    notes: `${how}: ${row.what}, against POST /api/submit and the answer awaited (rt.waitForAnswer) on the same service${goal}`,
  };
}

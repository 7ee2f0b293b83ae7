import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { RetryingModel, collectReply, defaultRetryPolicy, retryAfterFrom } from '../../src/llm/index.js';
import type { ChatRequest } from '../../src/llm/index.js';
import { TroupeError } from '../../src/errors.js';
import { MemoryLogger, ScriptedModel, SimulatedClock } from '../../src/testing.js';
import { retryingModel, runTimers, settle } from '../support/retryingModelFixture.js';

const request: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };
const serverError = (): APIError => APIError.generate(500, { error: { message: 'upstream broke' } }, undefined, new Headers());
const rateLimited = (retryAfter: string): APIError =>
  APIError.generate(429, { error: { message: 'slow down' } }, undefined, new Headers({ 'retry-after': retryAfter }));

const setup = retryingModel;

describe('RetryingModel', () => {
  it('retries 5xx three times after 1, 2 and 4 s, then surfaces the error', async () => {
    const { inner, clock, logger, model } = setup([{ error: serverError() }, { error: serverError() }, { error: serverError() }, { error: serverError() }]);
    let outcome: unknown;
    const call = collectReply(model.chat(request)).then(
      () => (outcome = 'resolved'),
      (error: unknown) => (outcome = error),
    );
    const waits = await runTimers(clock, () => outcome !== undefined);
    await call;
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(inner.requests).toHaveLength(4);
    // Given up: a model_error naming what the provider said, the last APIError as its cause.
    expect(outcome).toBeInstanceOf(TroupeError);
    expect(outcome).toMatchObject({ code: 'model_error', message: 'model scripted failed: HTTP 500: upstream broke' });
    expect((outcome as TroupeError).cause).toBeInstanceOf(APIError);
    expect(((outcome as TroupeError).cause as APIError).status).toBe(500);
    const retries = logger.entries.filter((entry) => entry.message === 'model call failed; retrying');
    expect(retries.map((entry) => [entry.fields['attempt'], entry.fields['delayMs'], entry.fields['status']])).toEqual([
      [1, 1000, 500],
      [2, 2000, 500],
      [3, 4000, 500],
    ]);
    expect(retries.every((entry) => String(entry.fields['error']).includes('upstream broke'))).toBe(true);
  });

  it('returns the reply when the second attempt succeeds', async () => {
    const { inner, clock, model } = setup([{ error: new APIConnectionError({ message: 'socket hang up' }) }, { text: 'hello again' }]);
    let reply: string | undefined;
    const call = collectReply(model.chat(request)).then((collected) => (reply = collected.message.content));
    const waits = await runTimers(clock, () => reply !== undefined);
    await call;
    expect(waits).toEqual([1000]);
    expect(reply).toBe('hello again');
    expect(inner.requests).toHaveLength(2);
  });

  it('waits as long as Retry-After asks, in seconds or as a date, but no longer than maxDelayMs', async () => {
    const { clock, model } = setup([{ error: rateLimited('7') }, { error: rateLimited('600') }, { text: 'ok' }], { ...defaultRetryPolicy, maxDelayMs: 30_000 });
    let done = false;
    const call = collectReply(model.chat(request)).then(() => (done = true));
    const waits = await runTimers(clock, () => done);
    await call;
    expect(waits).toEqual([7000, 30_000]);
    expect(retryAfterFrom(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6_000);
    expect(retryAfterFrom(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterFrom(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });

  it.each([400, 401, 403, 404, 422])('does not retry a %i', async (status) => {
    const { inner, clock, model } = setup([{ error: APIError.generate(status, { error: { message: 'no' } }, undefined, new Headers()) }, { text: 'never' }]);
    await expect(collectReply(model.chat(request))).rejects.toMatchObject({ code: 'model_error', cause: { status } });
    expect(inner.requests).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it('does not retry an error it does not know to be transient', async () => {
    const { inner, model } = setup([{ error: new Error('tool schema rejected') }, { text: 'never' }]);
    await expect(collectReply(model.chat(request))).rejects.toMatchObject({ code: 'model_error', message: 'model scripted failed: tool schema rejected' });
    expect(inner.requests).toHaveLength(1);
  });

  it('never retries an aborted call (property 11): neither an abort error nor an abort during the wait', async () => {
    const first = setup([{ error: new APIUserAbortError() }, { text: 'never' }]);
    await expect(collectReply(first.model.chat(request))).rejects.toBeInstanceOf(APIUserAbortError);
    expect(first.inner.requests).toHaveLength(1);

    const second = setup([{ error: serverError() }, { text: 'never' }]);
    const controller = new AbortController();
    const call = collectReply(second.model.chat(request, { signal: controller.signal }));
    const outcome = call.catch((error: unknown) => error);
    await settle();
    expect(second.clock.pending).toBe(1);
    controller.abort(new Error('agent terminated'));
    expect(await outcome).toMatchObject({ message: 'agent terminated' });
    second.clock.advance(10_000);
    await settle();
    expect(second.inner.requests).toHaveLength(1);
  });

  it('restarts a stream that fails part-way, and the consumer keeps only the retried reply', async () => {
    const { inner, clock, model } = setup([
      { chunks: [{ type: 'text', text: 'half an ans' }, { error: new APIConnectionError({ message: 'reset' }) }] },
      { text: 'the whole answer' },
    ]);
    const restarts: number[] = [];
    let reply: string | undefined;
    const call = collectReply(model.chat(request), undefined, (attempt) => restarts.push(attempt)).then((collected) => (reply = collected.message.content));
    await runTimers(clock, () => reply !== undefined);
    await call;
    expect(reply).toBe('the whole answer');
    expect(restarts).toEqual([1]);
    expect(inner.requests).toHaveLength(2);
  });

  it('spreads waits by default, so agents refused by the same 429 do not retry in lockstep: backoffs shorter, a Retry-After longer, never shorter', () => {
    const draws = [0.99, 0.2, 0];
    const { model } = setup([], defaultRetryPolicy, () => draws.shift() ?? 0);
    expect(defaultRetryPolicy.jitter).toBeGreaterThan(0);
    const spread = defaultRetryPolicy.jitter;
    expect(model.delayFor(0, undefined)).toBe(1000 * (1 - spread * 0.99));
    expect(model.delayFor(0, 2000)).toBe(2000 * (1 + spread * 0.2));
    // The lowest draw waits exactly what the server asked for.
    expect(model.delayFor(0, 2000)).toBe(2000);
  });

  it('spreads delays with jitter so parallel agents do not retry in lockstep', () => {
    const draws = [0.5, 0, 0.99];
    const { model } = setup([], { ...defaultRetryPolicy, jitter: 0.5 }, () => draws.shift() ?? 0);
    expect([model.delayFor(0, undefined), model.delayFor(1, undefined), model.delayFor(2, undefined)]).toEqual([750, 2000, 4000 * (1 - 0.5 * 0.99)]);
  });

  it('retries embeddings on the same schedule', async () => {
    const inner = new ScriptedModel([]);
    let calls = 0;
    const flaky = Object.assign(Object.create(inner) as ScriptedModel, {
      embed: async (texts: readonly string[]) => {
        calls++;
        if (calls === 1) throw serverError();
        return inner.embed(texts);
      },
    });
    const clock = new SimulatedClock();
    // A random draw of 0: the jitter shortens nothing, so the wait is the schedule's own.
    const model = new RetryingModel(flaky, defaultRetryPolicy, { clock, random: () => 0 });
    let vectors: number[][] | undefined;
    const call = model.embed(['a b c']).then((result) => (vectors = result));
    const waits = await runTimers(clock, () => vectors !== undefined);
    await call;
    expect(waits).toEqual([1000]);
    expect(vectors?.[0]).toHaveLength(384);
  });
});

describe('RetryingModel stream', () => {
  it('retries a model whose chat() throws before it returns a stream, as a failed first attempt', async () => {
    let calls = 0;
    const inner = new ScriptedModel([{ text: 'second time lucky' }]);
    const flaky = {
      name: 'flaky',
      scripted: true,
      embed: () => Promise.resolve([]),
      chat: (req: ChatRequest) => {
        calls += 1;
        if (calls === 1) throw serverError();
        return inner.chat(req);
      },
    };
    const clock = new SimulatedClock();
    const model = new RetryingModel(flaky, defaultRetryPolicy, { clock, logger: new MemoryLogger(), random: () => 0 });
    let reply = '';
    const call = collectReply(model.chat(request)).then((collected) => (reply = collected.message.content));
    expect(await runTimers(clock, () => reply !== '')).toEqual([1000]);
    await call;
    expect([reply, calls]).toEqual(['second time lucky', 2]);
  });

  it('closes the attempt in flight when the consumer stops reading', async () => {
    let closed = false;
    const inner = {
      name: 'endless',
      scripted: true,
      embed: () => Promise.resolve([]),
      chat: async function* () {
        try {
          for (;;) yield { type: 'text' as const, text: 'more ' };
        } finally {
          closed = true;
        }
      },
    };
    const model = new RetryingModel(inner, defaultRetryPolicy, { clock: new SimulatedClock() });
    let seen = 0;
    for await (const delta of model.chat(request)) {
      if (delta.type === 'text') seen += 1;
      if (seen === 3) break;
    }
    expect([seen, closed]).toEqual([3, true]);
  });
});

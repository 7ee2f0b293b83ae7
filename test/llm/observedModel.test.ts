import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/errors.js';
import { type AttemptWatch, type ModelCallMeasure, RetryingModel, collectReply, observedModel } from '../../src/llm/index.js';
import { ScriptedModel } from '../../src/testing.js';

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

/** A sink that wants measures while `wanted` is true, and keeps them. */
function sink(wanted = true) {
  const measures: ModelCallMeasure[] = [];
  return { measures, wanted: () => wanted, report: (measure: ModelCallMeasure) => void measures.push(measure) };
}

const chat = { operation: 'chat', model: 'local:small', responseModel: null } as const;

describe('observedModel', () => {
  it('reports a chat with the usage of its last finish, and a failed one with its code', async () => {
    const model = new ScriptedModel(
      [
        {
          chunks: [
            { type: 'text', text: 'hello' },
            { type: 'finish', reason: 'stop' },
            { type: 'finish', reason: 'usage', usage: { promptTokens: 7, completionTokens: 2 } },
          ],
        },
        { error: new TroupeError('model_error', 'the provider said no') },
        { error: new Error('something else') },
      ],
      { name: 'local:small' },
    );
    const into = sink();
    const measured = observedModel(model, into);
    expect((await collectReply(measured.chat(request))).message.content).toBe('hello');
    await expect(collectReply(measured.chat(request))).rejects.toThrow('the provider said no');
    await expect(collectReply(measured.chat(request))).rejects.toThrow('something else');
    expect(into.measures.map(({ seconds, firstChunkSeconds, ...rest }) => ({ ...rest, timed: seconds >= (firstChunkSeconds ?? 0) }))).toEqual([
      { ...chat, usage: { promptTokens: 7, completionTokens: 2 }, finishReason: 'stop', errorType: null, timed: true },
      { ...chat, usage: null, finishReason: null, errorType: 'model_error', timed: true },
      { ...chat, usage: null, finishReason: null, errorType: '_OTHER', timed: true },
    ]);
    expect(into.measures[0]?.firstChunkSeconds).toEqual(expect.any(Number));
  });

  it('reports embeddings, and passes calls straight through while the sink wants nothing', async () => {
    const model = new ScriptedModel([{ text: 'unmeasured' }]);
    const into = sink();
    expect(await observedModel(model, into).embed(['a', 'b'])).toHaveLength(2);
    expect(into.measures).toMatchObject([{ operation: 'embeddings', model: 'scripted', usage: null, errorType: null }]);
    const idle = sink(false);
    const stream = observedModel(model, idle).chat(request);
    expect((await collectReply(stream)).message.content).toBe('unmeasured');
    expect(idle.measures).toEqual([]);
  });

  it("tells the call's watcher of each attempt under the retry layer, with the same measure the sink gets and the reply it assembled", async () => {
    const model = new ScriptedModel([{ error: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }, { text: 'second time' }], {
      name: 'local:small',
    });
    const into = sink();
    const seen: { measure: ModelCallMeasure; error: boolean; text: string | undefined }[] = [];
    const attempt = (): AttemptWatch => ({
      wantsReply: true,
      run: (step) => step(),
      ended: (measure, outcome) => void seen.push({ measure, error: outcome.error !== undefined, text: outcome.reply?.message.content }),
    });
    const retrying = new RetryingModel(observedModel(model, into), { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1, jitter: 0 });
    expect((await collectReply(retrying.chat(request, { watcher: { attempt } }))).message.content).toBe('second time');
    expect(seen.map(({ error, text }) => ({ error, text }))).toEqual([
      { error: true, text: undefined },
      { error: false, text: 'second time' },
    ]);
    expect(seen.map(({ measure }) => measure)).toEqual(into.measures);
  });
});

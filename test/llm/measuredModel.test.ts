import { describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/errors.js';
import { type ModelCallMeasure, collectReply, measuredModel } from '../../src/llm/index.js';
import { ScriptedModel } from '../../src/testing.js';

const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

/** A sink that wants measures while `wanted` is true, and keeps them. */
function sink(wanted = true) {
  const measures: ModelCallMeasure[] = [];
  return { measures, wanted: () => wanted, report: (measure: ModelCallMeasure) => void measures.push(measure) };
}

describe('measuredModel', () => {
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
    const measured = measuredModel(model, into);
    expect((await collectReply(measured.chat(request))).message.content).toBe('hello');
    await expect(collectReply(measured.chat(request))).rejects.toThrow('the provider said no');
    await expect(collectReply(measured.chat(request))).rejects.toThrow('something else');
    expect(into.measures.map(({ seconds, ...rest }) => ({ ...rest, timed: seconds >= 0 }))).toEqual([
      { operation: 'chat', model: 'local:small', usage: { promptTokens: 7, completionTokens: 2 }, errorType: null, timed: true },
      { operation: 'chat', model: 'local:small', usage: null, errorType: 'model_error', timed: true },
      { operation: 'chat', model: 'local:small', usage: null, errorType: '_OTHER', timed: true },
    ]);
  });

  it('reports embeddings, and passes calls straight through while the sink wants nothing', async () => {
    const model = new ScriptedModel([{ text: 'unmeasured' }]);
    const into = sink();
    expect(await measuredModel(model, into).embed(['a', 'b'])).toHaveLength(2);
    expect(into.measures).toMatchObject([{ operation: 'embeddings', model: 'scripted', usage: null, errorType: null }]);
    const idle = sink(false);
    const stream = measuredModel(model, idle).chat(request);
    expect((await collectReply(stream)).message.content).toBe('unmeasured');
    expect(idle.measures).toEqual([]);
  });
});

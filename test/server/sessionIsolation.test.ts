import { describe, expect, it } from 'vitest';
import { OpenAIModel } from '../../src/llm/index.js';
import { startOpenAICompatibleServer } from '../../src/testing.js';
import { cleanupAfterEach } from '../support/cleanupAfterEach.js';
import { promptsIn } from '../support/heldCalls.js';
import { answered, call, serve } from '../support/httpServerFixture.js';

// Two clients talking to root over HTTP, each in its own session, at once: the model is asked
// about each session with that session's exchanges only (checked at the OpenAI-compatible server
// the real `openai` package called), and a session's next Task still sees its own earlier text.

const later = cleanupAfterEach();

type Submitted = { taskId: string; sessionId: string };

describe('two sessions over HTTP on one root', () => {
  it("neither session's model requests contain the other's text", async () => {
    const models = await startOpenAICompatibleServer({ fallback: (request) => ({ text: `noted: ${promptsIn(request).at(-1) ?? ''}` }) });
    later(() => models.close());
    const served = await serve({ model: new OpenAIModel({ baseURL: models.baseURL, apiKey: 'test', model: 'm' }) });
    later(() => served.close());
    const submit = async (text: string, sessionId?: string): Promise<Submitted> =>
      (await call<Submitted>(served.url, '/api/submit', { json: sessionId === undefined ? { text } : { text, sessionId } })).body;

    const [alpha, bravo] = await Promise.all([submit('alpha: my cat is called Tom'), submit('bravo: my dog is called Rex')]);
    await Promise.all([alpha, bravo].map(({ taskId }) => answered(served.rt, taskId)));
    const [alphaAgain, bravoAgain] = await Promise.all([
      submit('alpha: what is my cat called?', alpha.sessionId),
      submit('bravo: what is my dog called?', bravo.sessionId),
    ]);
    const answers = await Promise.all([alphaAgain, bravoAgain].map(({ taskId }) => answered(served.rt, taskId)));
    expect(answers.map((answer) => answer.sessionId)).toEqual([alpha.sessionId, bravo.sessionId]);

    const asked = models.chatRequests.map((request) => JSON.stringify(request.messages));
    expect(asked).toHaveLength(4);
    for (const request of asked) expect(request.includes('alpha') && request.includes('bravo'), request).toBe(false);
    // Each session's second call carries its own first exchange.
    expect(asked.filter((request) => request.includes('Tom'))).toHaveLength(2);
    expect(asked.filter((request) => request.includes('Rex'))).toHaveLength(2);
    expect(models.chatRequests.map((request) => promptsIn(request).join(' | ')).sort()).toEqual([
      'alpha: my cat is called Tom',
      'alpha: my cat is called Tom | alpha: what is my cat called?',
      'bravo: my dog is called Rex',
      'bravo: my dog is called Rex | bravo: what is my dog called?',
    ]);
  });
});

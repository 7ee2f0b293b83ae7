import fc from 'fast-check';
import { APIConnectionError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { type ChatRequest, collectReply } from '../../src/llm/index.js';
import type { ScriptStep } from '../../src/llm/index.js';
import { retryingModel, runTimers } from '../support/retryingModelFixture.js';

// Property 11 of seed 004: a failed model call is retried with exponential backoff, at most 3
// times, the n-th retry after 2^(n-1) s (1, 2, 4 s); what cannot succeed by retrying is not retried.

const request: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], tools: [] };

/** One attempt's outcome, and whether retrying after it could help. */
type Outcome = { kind: 'ok' } | { kind: 'transient'; status: number | 'network' } | { kind: 'fatal'; status: number };

const outcomeArb: fc.Arbitrary<Outcome> = fc.oneof(
  fc.constant<Outcome>({ kind: 'ok' }),
  fc.constantFrom<Outcome>(
    { kind: 'transient', status: 500 },
    { kind: 'transient', status: 502 },
    { kind: 'transient', status: 503 },
    { kind: 'transient', status: 408 },
    { kind: 'transient', status: 429 },
    { kind: 'transient', status: 'network' },
  ),
  fc.constantFrom<Outcome>({ kind: 'fatal', status: 400 }, { kind: 'fatal', status: 401 }, { kind: 'fatal', status: 404 }, { kind: 'fatal', status: 422 }),
);

function step(outcome: Outcome, n: number): ScriptStep {
  if (outcome.kind === 'ok') return { text: `answer ${n}` };
  if (outcome.status === 'network') return { error: new APIConnectionError({ message: 'socket hang up' }) };
  return { error: APIError.generate(outcome.status, { error: { message: `status ${outcome.status}` } }, undefined, new Headers()) };
}

describe('model call retries (property 11)', () => {
  it('retries transient failures at most 3 times after 1, 2 and 4 s, never a fatal one, and returns the first success', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(outcomeArb, { minLength: 1, maxLength: 6 }), async (drawn) => {
        // The script ends in a fatal failure, so every attempt the model makes has an outcome.
        const outcomes: Outcome[] = [...drawn, { kind: 'fatal', status: 400 }];
        const { inner, clock, model } = retryingModel(outcomes.map(step));
        let settled: { ok: true; text: string } | { ok: false; error: unknown } | undefined;
        const call = collectReply(model.chat(request)).then(
          (reply) => (settled = { ok: true, text: reply.message.content }),
          (error: unknown) => (settled = { ok: false, error }),
        );
        const waits = await runTimers(clock, () => settled !== undefined);
        await call;

        // The test's own model: attempts go on while they fail transiently, up to 1 + 3.
        let attempts = 0;
        for (const outcome of outcomes) {
          attempts += 1;
          if (outcome.kind !== 'transient' || attempts === 4) break;
        }
        const last = outcomes[attempts - 1];
        expect(inner.requests).toHaveLength(attempts);
        expect(waits).toEqual([1000, 2000, 4000].slice(0, attempts - 1));
        expect(clock.pending).toBe(0);
        if (last?.kind === 'ok') expect(settled).toEqual({ ok: true, text: `answer ${attempts - 1}` });
        else expect(settled).toMatchObject({ ok: false, error: { code: 'model_error' } });
      }),
      { numRuns: 200 },
    );
  });
});

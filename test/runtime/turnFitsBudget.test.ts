import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TokenCounter } from '../../src/context/index.js';
import { defineTool } from '../../src/index.js';
import { quietRuntime } from '../support/runtimeFixture.js';

// Issue 33, point 9, through the runtime: a tool loop whose results outgrow the context budget
// within one turn is compacted before each model call that would be over, so no request is sent
// over the budget, the turn goes on to its answer, and the log says when it happened.

const counter = new TokenCounter();

const readPage = defineTool({
  name: 'read_page',
  description: 'Reads one page of the manual.',
  parameters: z.object({ page: z.number().int() }),
  annotations: { readOnly: true },
  execute: ({ page }) => Promise.resolve({ content: `Page ${page}: ${'The valve opens clockwise and closes anticlockwise. '.repeat(12)}` }),
});

describe('a turn that outgrows its budget', () => {
  it('is compacted before the call that would be over: every request fits, the newest result is kept, the turn answers', async () => {
    const budget = 2_000;
    const steps = Array.from({ length: 30 }, (_, page) => ({ toolCalls: [{ name: 'read_page', arguments: { page } }] }));
    const { rt, model, logger } = await quietRuntime({
      tools: [readPage],
      maxSteps: 40,
      memory: { context: { tokens: budget } },
      steps: [...steps, { text: 'It opens clockwise.' }],
    });
    const answer = await rt.waitForAnswer(await rt.submit('How does the valve open? Read the manual page by page.'), { timeoutMs: 30_000 });
    expect(answer.status).toBe('completed');
    expect(model.requests).toHaveLength(31);
    for (const request of model.requests) expect(counter.request(request.messages)).toBeLessThanOrEqual(budget);
    const last = model.requests[30]?.messages ?? [];
    // The prompt, a summary of what was taken out, and the newest page verbatim.
    expect(last.some((message) => message.role === 'user' && message.content.includes('How does the valve open?'))).toBe(true);
    expect(last.some((message) => message.role === 'system' && message.content.includes('Tools called: read_page'))).toBe(true);
    expect(last.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('Page 29:') as unknown });
    const compactions = logger.entries.filter((entry) => entry.message === "a turn's steps were compacted to fit the context budget");
    expect(compactions.length).toBeGreaterThan(0);
    // Compacted to the share a turn may take, not to the brim: not again at every step.
    expect(compactions.length).toBeLessThan(10);
    await rt.shutdown();
  });
});

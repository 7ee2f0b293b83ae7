import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/task/index.js';
import { type StepRunner, runSkillSteps } from '../../src/skills/index.js';
import { errorResult } from '../../src/tools/index.js';
import type { SkillStep } from '../../src/skills/index.js';

/** A runner whose tools answer from `answer`, recording every call in order. */
function recording(answer: (tool: string, args: Record<string, JsonValue>) => string | Error): {
  calls: [string, Record<string, JsonValue>][];
  run: StepRunner;
} {
  const calls: [string, Record<string, JsonValue>][] = [];
  return {
    calls,
    run: (tool, args) => {
      calls.push([tool, args]);
      const answered = answer(tool, args);
      return Promise.resolve(answered instanceof Error ? errorResult(answered.message) : { content: answered });
    },
  };
}

describe("a skill's tool steps", () => {
  it("run in order, each step's result passed to the next by name, the Task's text as {{task}}", async () => {
    const { calls, run } = recording((tool, args) => `${tool}(${JSON.stringify(args)})`);
    const steps: SkillStep[] = [
      { name: 'city', tool: 'find_city', arguments: { text: '{{task}}' } },
      { name: 'forecast', tool: 'get_forecast', arguments: { city: '{{city}}', days: 2, nested: ['{{ city }}'] } },
    ];
    const outcome = await runSkillSteps(steps, 'Report: {{forecast}}', 'rain in Lisbon?', run);
    expect(calls).toEqual([
      ['find_city', { text: 'rain in Lisbon?' }],
      ['get_forecast', { city: 'find_city({"text":"rain in Lisbon?"})', days: 2, nested: ['find_city({"text":"rain in Lisbon?"})'] }],
    ]);
    expect(outcome).toMatchObject({ ok: true, text: `Report: ${calls[1]?.[0]}(${JSON.stringify(calls[1]?.[1])})` });
  });

  it('run a parallel group at once and join its results under the join name', async () => {
    let running = 0;
    let most = 0;
    const run: StepRunner = async (tool) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      return { content: `${tool} done` };
    };
    const steps: SkillStep[] = [
      {
        parallel: [
          { name: 'a', tool: 'ta' },
          { name: 'b', tool: 'tb' },
          { name: 'c', tool: 'tc' },
        ],
        join: 'all',
      },
      { name: 'sum', tool: 'summarise', arguments: { input: '{{all}}' } },
    ];
    const seen: Record<string, JsonValue>[] = [];
    const outcome = await runSkillSteps(steps, undefined, 'go', (tool, args) => {
      if (tool === 'summarise') {
        seen.push(args);
        return Promise.resolve({ content: 'summary' });
      }
      return run(tool, args);
    });
    expect(most).toBe(3);
    expect(seen).toEqual([{ input: JSON.stringify({ a: 'ta done', b: 'tb done', c: 'tc done' }) }]);
    expect(outcome).toMatchObject({ ok: true, text: 'summary', results: { a: 'ta done', all: JSON.stringify({ a: 'ta done', b: 'tb done', c: 'tc done' }) } });
  });

  it('stop at a failing step and report it by name, running nothing after it', async () => {
    const { calls, run } = recording((tool) => (tool === 'broken' ? new Error('disk full') : 'fine'));
    const steps: SkillStep[] = [
      { name: 'first', tool: 'ok' },
      {
        parallel: [
          { name: 'good', tool: 'ok' },
          { name: 'bad', tool: 'broken' },
        ],
        join: 'both',
      },
      { name: 'never', tool: 'ok' },
    ];
    const outcome = await runSkillSteps(steps, undefined, 'go', run);
    expect(outcome).toMatchObject({ ok: false, step: 'bad', tool: 'broken', error: expect.stringContaining('disk full') as string });
    expect(calls.map(([tool]) => tool)).toEqual(['ok', 'ok', 'broken']);
  });

  it('fail a step whose arguments name no earlier step, without calling its tool', async () => {
    const { calls, run } = recording(() => 'x');
    const outcome = await runSkillSteps([{ name: 'one', tool: 't', arguments: { q: '{{later}}' } }], undefined, 'go', run);
    expect(outcome).toMatchObject({ ok: false, step: 'one', error: 'its arguments name {{later}}, which no earlier step is called' });
    expect(calls).toEqual([]);
  });
});

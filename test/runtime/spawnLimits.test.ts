import { describe, expect, it } from 'vitest';
import { societyOf } from '../../src/testing.js';
import { quietRuntime, rejectedCode } from '../support/runtimeFixture.js';
import { lastToolResult } from '../support/scriptByRole.js';
import type { ChatRequest } from '../../src/llm/index.js';

const spawn = (role: string) => ({ toolCalls: [{ name: 'spawn_agent', arguments: { role } }] });

/** The codes of every tool result the model has read so far in `request`. */
function toolCodes(request: ChatRequest | undefined): (string | null)[] {
  return (request?.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => (JSON.parse(message.content) as { code?: string }).code ?? null);
}

describe('spawn limits', () => {
  it('a model calling spawn_agent in a loop gets children_limit as a tool error once it has maxChildrenPerAgent live children', async () => {
    const { rt, model } = await quietRuntime({
      maxChildrenPerAgent: 3,
      // The same spawn_agent call five times in one turn: the repeat guard must not be what stops it.
      maxRepeatedToolCalls: 10,
      steps: [
        { toolCalls: [{ name: 'create_role', arguments: { name: 'w', prompt: 'work' } }] },
        spawn('w'),
        // Three in one reply: run in parallel, so the limit must hold for spawns in flight together.
        {
          toolCalls: [
            { name: 'spawn_agent', arguments: { role: 'w' } },
            { name: 'spawn_agent', arguments: { role: 'w' } },
            { name: 'spawn_agent', arguments: { role: 'w' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const answer = await rt.waitForAnswer(await rt.submit('spawn forever'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('completed');
    const last = model.requests.at(-1);
    // create_role, four spawns: three children made, the refused one's result read first (it returns at once).
    const codes = toolCodes(last);
    expect(codes.filter((code) => code === 'children_limit')).toHaveLength(1);
    expect(codes.filter((code) => code === null)).toHaveLength(4);
    const refusal = last?.messages.find((message) => message.role === 'tool' && message.content.includes('children_limit'));
    expect((JSON.parse(refusal?.content ?? '{}') as { error?: string }).error).toContain('maxChildrenPerAgent');
    expect(societyOf(rt).liveIds()).toHaveLength(4);

    // A terminated child frees its place.
    const child =
      societyOf(rt)
        .liveIds()
        .find((id) => id !== 'root') ?? '';
    await rt.terminate(child, { by: 'root' });
    expect(await rejectedCode(rt.spawn({ role: 'w', parent: 'root' }))).toBe(null);
    expect(await rejectedCode(rt.spawn({ role: 'w', parent: 'root' }))).toBe('children_limit');
    await rt.shutdown();
  });

  it('refuses a spawn past maxLiveAgents with agent_limit, spawns in flight counted', async () => {
    const { rt } = await quietRuntime({ maxLiveAgents: 3 });
    await rt.createRole({ name: 'w', prompt: 'work' });
    await rt.spawn({ role: 'w' });
    const spawns = [rt.spawn({ role: 'w' }), rt.spawn({ role: 'w' })];
    expect(await Promise.all(spawns.map(rejectedCode))).toEqual([null, 'agent_limit']);
    expect(societyOf(rt).liveIds()).toHaveLength(3);
    await rt.shutdown();
  });

  it('refuses a spawn deeper than maxSpawnDepth with spawn_depth_limit (a top-level agent is at depth 1)', async () => {
    const { rt, model } = await quietRuntime({
      maxSpawnDepth: 2,
      steps: [
        { toolCalls: [{ name: 'create_role', arguments: { name: 'w', prompt: 'work' } }] },
        spawn('w'),
        (request) => ({ toolCalls: [{ name: 'delegate_task', arguments: { agentId: lastToolResult(request)['agentId'], task: 'spawn one' } }] }),
        spawn('w'),
        (request) => ({ text: `child: ${JSON.stringify(lastToolResult(request))}` }),
        (request) => ({ text: JSON.stringify(lastToolResult(request)) }),
      ],
    });
    const answer = await rt.waitForAnswer(await rt.submit('go deep'), { timeoutMs: 5_000 });
    expect(answer.status).toBe('completed');
    expect(JSON.stringify(answer.result)).toContain('spawn_depth_limit');
    model.assertUsedUp();
    await rt.shutdown();
  });

  it('createRuntime refuses a limit that is not a positive whole number, naming it', async () => {
    await expect(quietRuntime({ maxLiveAgents: 0 })).rejects.toThrow(/maxLiveAgents/);
    await expect(quietRuntime({ maxConcurrentModelCalls: 1.5 })).rejects.toThrow(/maxConcurrentModelCalls/);
  });
});

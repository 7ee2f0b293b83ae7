import { describe, expect, it } from 'vitest';
import { randomIds, sequentialIds } from '../src/ids.js';
import { createRuntime } from '../src/index.js';
import { AgentIdSchema } from '../src/task/index.js';

describe('randomIds', () => {
  it('gives 100,000 agents of one role 100,000 different ids', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 100_000; i++) ids.add(randomIds.agent('poet'));
    // With 24 random bits, about 300 of these would clash.
    expect(ids.size).toBe(100_000);
  });

  it('lets a runtime spawn 10,000 agents of one role without refusing one as taken', async () => {
    // With 24 random bits, about three of these spawns were refused ("agent id … is taken").
    const rt = await createRuntime({ maxLiveAgents: 20_000 });
    try {
      await rt.createRole({ name: 'poet', prompt: 'Write poems.' });
      const spawned = new Set<string>();
      for (let i = 0; i < 10_000; i++) spawned.add(await rt.spawn({ role: 'poet' }));
      expect(spawned.size).toBe(10_000);
    } finally {
      await rt.shutdown();
    }
  }, 60_000);

  it('puts at least 64 random bits after the role, and the id is a valid agent id', () => {
    const id = randomIds.agent('Senior Poet!');
    expect(id).toMatch(/^senior-poet-[0-9a-f]{16}$/);
    expect(AgentIdSchema.safeParse(id).success).toBe(true);
    // The longest slug (24 characters) still leaves a valid id.
    expect(AgentIdSchema.safeParse(randomIds.agent('x'.repeat(200))).success).toBe(true);
  });

  it('names an agent of a role whose name has no letters or digits "agent-…"', () => {
    expect(randomIds.agent('!!!')).toMatch(/^agent-[0-9a-f]{16}$/);
  });
});

describe('sequentialIds', () => {
  it('counts Tasks and agents apart', () => {
    const ids = sequentialIds();
    expect([ids.task(), ids.agent('poet'), ids.task(), ids.agent('poet')]).toEqual(['t1', 'poet-1', 't2', 'poet-2']);
  });
});

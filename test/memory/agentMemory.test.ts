import { describe, expect, it } from 'vitest';
import { TroupeError, ValidationError } from '../../src/errors.js';
import { AgentMemory, extractiveHelpers } from '../../src/memory/index.js';
import { SimulatedClock } from '../../src/simulatedClock.js';
import { Actions } from '../../src/task/index.js';
import { FactStoreDouble } from '../support/factStoreDouble.js';
import { memoryTask, openMemory } from '../support/memoryFixture.js';

describe('AgentMemory: what it keeps', () => {
  it('keeps the Tasks its agent sends or receives, and no others', async () => {
    const { memory } = await openMemory();
    expect(await memory.observe(memoryTask({ id: 'in', from: 'user', to: 'agent' }))).toBe('kept');
    expect(await memory.observe(memoryTask({ id: 'out', from: 'agent', to: 'worker' }))).toBe('kept');
    expect(await memory.observe(memoryTask({ id: 'other', from: 'user', to: 'worker' }))).toBe('ignored');
    expect(memory.l1().map((entry) => entry.task.id)).toEqual(['in', 'out']);
  });

  it('skips streamed thinking and working progress updates', async () => {
    const { memory } = await openMemory();
    expect(await memory.observe(memoryTask({ from: 'agent', to: 'observer', action: Actions.thinking, status: 'working' }))).toBe('ignored');
    expect(await memory.observe(memoryTask({ from: 'agent', to: 'observer', action: Actions.toolCall, status: 'working' }))).toBe('ignored');
    expect(await memory.observe(memoryTask({ from: 'agent', to: 'user', status: 'working' }))).toBe('ignored');
    expect(memory.counts()).toMatchObject({ l1: 0 });
  });

  it('puts a new entry in L1 with its session and base importance, marked for L2 when above the threshold', async () => {
    const { memory, clock } = await openMemory();
    await memory.observe(memoryTask({ id: 'a', importance: 0.9 }));
    clock.advance(5);
    await memory.observe(memoryTask({ id: 'b', importance: 0.6, sessionId: 's2' }));
    const [a, b] = memory.l1();
    expect(a).toMatchObject({ tier: 'L1', sessionId: 's1', importance: 0.9, forL2: true, retrievals: 0, createdAt: 1_000_000, lastRetrievedAt: null });
    expect(b).toMatchObject({ tier: 'L1', sessionId: 's2', importance: 0.6, forL2: false, createdAt: 1_000_005 });
    expect(memory.l2()).toEqual([]);
  });

  it('filters every tier by session, oldest first', async () => {
    const { memory } = await openMemory();
    for (const [id, sessionId] of [
      ['a1', 'A'],
      ['b1', 'B'],
      ['a2', 'A'],
    ] as const)
      await memory.observe(memoryTask({ id, sessionId }));
    expect(memory.l1({ sessionId: 'A' }).map((entry) => entry.task.id)).toEqual(['a1', 'a2']);
    expect(memory.l1({ sessionId: 'B' }).map((entry) => entry.task.id)).toEqual(['b1']);
    expect(memory.l1({ sessionId: 'C' })).toEqual([]);
    expect(memory.l1()).toHaveLength(3);
  });

  it('hands out copies of its lists and frozen entries: nothing a caller does changes it', async () => {
    const { memory } = await openMemory();
    await memory.observe(memoryTask());
    memory.l1().pop();
    expect(memory.l1()).toHaveLength(1);
    expect(Object.isFrozen(memory.l1()[0])).toBe(true);
  });

  it('validates a Task that did not come off the bus', async () => {
    const { memory } = await openMemory();
    const bad = { ...memoryTask(), sessionId: 'not a session id!' };
    await expect(memory.observe(bad)).rejects.toThrow(ValidationError);
    await expect(memory.observe(bad)).rejects.toThrow(/task\.sessionId/);
  });
});

describe('AgentMemory: L4 through the FactStore', () => {
  it('remember stores a fact in L4; search asks for that session and counts', async () => {
    const { memory, facts } = await openMemory();
    await memory.remember({ text: 'The user prefers tea to coffee.', scope: 'session', sessionId: 'A', importance: 0.7 });
    await memory.remember({ text: 'The user lives in Lisbon.', scope: 'agent', sessionId: null, importance: 0.8 });
    const hits = await memory.search('where does the user live', 5, { sessionId: 'B' });
    expect(hits.map((hit) => hit.fact.text)).toEqual(['The user lives in Lisbon.']);
    expect(facts.searches).toEqual([{ text: 'where does the user live', k: 5, sessionId: 'B' }]);
    expect(memory.counts()).toEqual({ l1: 0, l2: 0, l3: 0, l4: 2, pendingFacts: 0, refused: 0 });
  });

  it('close closes the FactStore, and a closed memory refuses every call', async () => {
    const { memory, facts } = await openMemory();
    await memory.close();
    expect(facts.closed).toBe(true);
    await expect(memory.observe(memoryTask())).rejects.toThrow(/memory of agent agent is closed/);
    await expect(memory.search('x', 1, { sessionId: null })).rejects.toThrow(TroupeError);
    await expect(memory.compact(0, { summarize: async () => ({ text: 'x', source: 'model' }), extractFacts: async () => [] })).rejects.toThrow(TroupeError);
  });
});

describe('AgentMemory: limits', () => {
  it('refuses a bad option, naming it', async () => {
    const open = (limits: Record<string, unknown>): Promise<AgentMemory> =>
      AgentMemory.open({ agentId: 'agent', db: null, facts: FactStoreDouble.open('agent'), clock: new SimulatedClock(), limits });
    await expect(open({ l1Capacity: 0 })).rejects.toThrow(/memory\.l1Capacity/);
    await expect(open({ l2Threshold: 1.5 })).rejects.toThrow(/memory\.l2Threshold/);
    await expect(open({ summaryMaxChars: 500 })).rejects.toThrow(/memory\.summaryMaxChars/);
    await expect(open({ halfLifeMs: -1 })).rejects.toThrow(/memory\.halfLifeMs/);
    await expect(open({ l1Capcity: 5 })).rejects.toThrow(ValidationError);
  });

  it('refuses a bad agent id, naming it', async () => {
    await expect(AgentMemory.open({ agentId: 'no spaces', db: null, facts: FactStoreDouble.open('x'), clock: new SimulatedClock() })).rejects.toThrow(
      /agentId/,
    );
  });

  it('lets L1 grow past its capacity until compaction, up to maxBacklog more; past that observe refuses, with a warning', async () => {
    const { memory, logger, clock } = await openMemory({ limits: { l1Capacity: 3, maxBacklog: 2 } });
    for (let i = 0; i < 5; i++) expect(await memory.observe(memoryTask({ id: `t${i}` }))).toBe('kept');
    expect(memory.counts().l1).toBe(5);
    expect(memory.compactionDue(clock.now())).toBe(true);
    expect(await memory.observe(memoryTask({ id: 'one-too-many' }))).toBe('refused');
    expect(memory.counts()).toMatchObject({ l1: 5, refused: 1 });
    // One summarising line per interval, not one per Task: the first at once, then a count of the rest.
    for (let i = 0; i < 49; i++) expect(await memory.observe(memoryTask({ id: `flood-${i}` }))).toBe('refused');
    const warnings = (): { message: string; fields: Record<string, unknown> }[] => logger.entries.filter((entry) => entry.level === 'warn');
    expect(warnings()).toHaveLength(1);
    clock.advance(10_000);
    expect(warnings().map((entry) => entry.message)).toEqual([
      'memory refused Tasks: L1 is at l1Capacity + maxBacklog, compaction is behind',
      'memory refused Tasks: L1 is at l1Capacity + maxBacklog, compaction is behind',
    ]);
    expect(warnings()[0]?.fields).toMatchObject({ agentId: 'agent', taskId: 'one-too-many', refusedInAll: 1 });
    expect(warnings()[1]?.fields).toMatchObject({ more: 49, example: { taskId: 'flood-0' } });
    expect(memory.counts().refused).toBe(50);
    // Once compaction catches up, Tasks are kept again.
    await memory.compact(clock.now(), extractiveHelpers(memory.limits));
    expect(memory.counts().l1).toBe(3);
    expect(await memory.observe(memoryTask({ id: 'welcome-again' }))).toBe('kept');
  });

  it('admits new work while L1, with what it and the work in progress are expected to add, stays within l1Capacity + maxBacklog less a quarter', async () => {
    // intakeBound 3 + 4 - 1 = 6; before any answer, a Task is expected to add 2 entries (its request and its answer).
    const { memory } = await openMemory({ limits: { l1Capacity: 3, maxBacklog: 4 } });
    expect(memory.admits(3, 0)).toBe(true);
    expect(memory.admits(4, 0)).toBe(false);
    for (let i = 0; i < 4; i++) await memory.observe(memoryTask({ id: `t${i}`, to: 'agent' }));
    expect(memory.admits(1, 0)).toBe(true);
    // Each of the 4 Tasks in progress is still to add its answer.
    expect(memory.admits(1, 1)).toBe(false);
    expect(memory.admits(0, 2)).toBe(true);
    expect(memory.admits(0, 3)).toBe(false);
  });

  it('learns how many entries a Task adds from the Tasks it answered, and counts that for the work in progress', async () => {
    // intakeBound 10 + 40 - 10 = 40; at most 20 entries expected of one Task.
    const { memory } = await openMemory({ limits: { l1Capacity: 10, maxBacklog: 40 } });
    for (let i = 0; i < 3; i++) {
      // A request, a delegation and its answer, then the answer: 4 entries a Task.
      await memory.observe(memoryTask({ id: `work${i}`, from: 'user', to: 'agent' }));
      await memory.observe(memoryTask({ id: `child${i}`, from: 'agent', to: 'helper' }));
      await memory.observe(memoryTask({ id: `child${i}`, from: 'helper', to: 'agent', status: 'completed' }));
      await memory.observe(memoryTask({ id: `work${i}`, from: 'agent', to: 'user', status: 'completed' }));
    }
    expect(memory.counts().l1).toBe(12);
    // 12 in L1 + 8 Tasks in progress × 3 entries still to come + 4 for the new one = 40.
    expect(memory.admits(1, 8)).toBe(true);
    expect(memory.admits(1, 9)).toBe(false);
  });
});

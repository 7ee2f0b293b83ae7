import { describe, expect, it } from 'vitest';
import { contextBudget } from '../../src/context/index.js';
import { extractiveHelpers } from '../../src/memory/index.js';
import { MemoryContext } from '../../src/runtime/agent/context/memoryContext.js';
import { keepNothing } from '../../src/runtime/journal/journal.js';
import type { ChatMessage } from '../../src/task/index.js';
import { memoryTask, openMemory } from '../support/memoryFixture.js';

// A turn's context reads its session's share of memory before every model call, and keeps that
// share between calls while memory is unchanged: whatever changes memory (a new Task, a
// compaction) must show in the very next call, and nothing of another session ever does.

const text = (messages: readonly ChatMessage[]): string => messages.map((message) => message.content).join('\n');

describe("a turn context's view of its session in memory", () => {
  it('shows each change to memory in the next model call, and only its own session', async () => {
    const { memory, clock } = await openMemory({ limits: { l1Capacity: 2, maxBacklog: 10 } });
    const context = new MemoryContext({
      agentId: 'agent',
      sessionId: 's1',
      rolePrompt: 'You are the agent.',
      memory: () => Promise.resolve(memory),
      inherited: () => null,
      budget: contextBudget({}),
      retrieve: 0,
      minRelevance: 0.15,
      sink: keepNothing,
      stored: [],
    });
    const versions = [memory.version];
    await memory.observe(memoryTask({ id: 'earlier', from: 'agent', to: 'peer', text: 'note: the bridge opens at nine' }));
    versions.push(memory.version);
    const current = memoryTask({ id: 'current', from: 'user', to: 'agent', text: 'when does the bridge open?' });
    await context.begin(current);
    expect(text(context.messages)).toContain('the bridge opens at nine');

    // Read twice with nothing new: the same messages, and memory's version stays where it was.
    expect(text(context.messages)).toBe(text(context.messages));
    expect(memory.version).toBe(versions.at(-1));

    clock.advance(10);
    await memory.observe(memoryTask({ id: 'later', from: 'agent', to: 'peer', text: 'note: the ferry leaves at ten' }));
    await memory.observe(memoryTask({ id: 'elsewhere', from: 'agent', to: 'peer', sessionId: 's2', text: 'note: the tunnel is closed' }));
    versions.push(memory.version);
    const afterNewTasks = text(context.messages);
    expect(afterNewTasks).toContain('the ferry leaves at ten');
    expect(afterNewTasks).not.toContain('the tunnel is closed');

    // A compaction moves the oldest Tasks of L1 on to L3 summaries: the next call sees the summary, not the Task.
    clock.advance(10);
    await memory.compact(clock.now(), extractiveHelpers(memory.limits));
    versions.push(memory.version);
    const summaries = memory.l3({ sessionId: 's1' });
    expect(summaries.length).toBeGreaterThan(0);
    const afterCompaction = text(context.messages);
    for (const summary of summaries) expect(afterCompaction).toContain(summary.summary);
    expect(memory.l1({ sessionId: 's1' }).some((entry) => entry.task.id === 'earlier')).toBe(false);
    expect(afterCompaction).not.toContain('the tunnel is closed');

    // Every change moved the version on.
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1] as number);
  });
});

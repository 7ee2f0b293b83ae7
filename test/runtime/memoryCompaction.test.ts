import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { createRuntime } from '../../src/runtime/index.js';
import { MemoryLogger, ScriptedModel } from '../../src/testing.js';
import { tempDirsAfterEach } from '../support/cleanupAfterEach.js';

// The runtime runs the memory compactor beside the turns: a session longer than L1 holds is
// summarised into L3 (extractively with a scripted model), the summaries reach later turns'
// contexts, the actor shows in the inspector, and what it moved survives a restart.

const dataDir = tempDirsAfterEach('troupe-memory-compaction-');
const limits = { l1Capacity: 4, l2Capacity: 2, entriesPerStep: 10 };
const summariesHeader = '[summaries of earlier work in this session, oldest first]';

interface CompactorSnapshot {
  readonly value?: unknown;
  readonly context?: { readonly queue?: readonly string[] };
}

/** The id of the actor an inspection event is about. */
function actorId(event: InspectionEvent): string {
  return String((event.actorRef as { id?: unknown }).id);
}

/** The memory compactor's snapshots, oldest first, as the inspector saw them. */
function compactorSnapshots(events: readonly InspectionEvent[]): CompactorSnapshot[] {
  return events.flatMap((event) => (event.type === '@xstate.snapshot' && actorId(event) === 'memoryCompactor' ? [event.snapshot as CompactorSnapshot] : []));
}

describe('the memory compactor in a runtime', () => {
  it('summarises what leaves L1 into L3, and later turns of the session read the summaries', async () => {
    const dir = await dataDir();
    const events: InspectionEvent[] = [];
    // Woken by the next inspection event: what the compactor does is seen as it happens, never polled on a timer.
    let wake: (() => void) | undefined;
    const onEvent = (event: InspectionEvent): void => {
      events.push(event);
      wake?.();
    };
    const whenSeen = async (condition: () => boolean): Promise<void> => {
      while (!condition()) await new Promise<void>((resolve) => (wake = resolve));
    };
    const turns = 12;
    const model = new ScriptedModel(Array.from({ length: turns + 2 }, (_, i) => ({ text: `noted fact number ${i} about the harbour` })));
    const compactor = (): CompactorSnapshot | undefined => compactorSnapshots(events).at(-1);
    const rt = await createRuntime({ dataDir: dir, model, logger: new MemoryLogger(), memory: { limits }, inspect: onEvent });
    const sessionId = await rt.submit('remember that the harbour opens at dawn');
    await rt.waitForAnswer(sessionId, { timeoutMs: 10_000 });
    for (let i = 1; i < turns; i++) await rt.waitForAnswer(await rt.submit(`turn ${i}: the harbour has ${i} boats`, { sessionId }), { timeoutMs: 10_000 });
    const actors = new Set(events.flatMap((event) => (event.type === '@xstate.actor' ? [actorId(event)] : [])));
    expect(actors).toContain('memoryCompactor');
    const compacted = (): boolean => compactorSnapshots(events).some((snapshot) => snapshot.value === 'compacting');
    await whenSeen(compacted);
    // Once the compactor has nothing left to do, the next turn reads what it wrote.
    await whenSeen(() => compactor()?.value === 'running' && compactor()?.context?.queue?.length === 0);
    await rt.waitForAnswer(await rt.submit('and now?', { sessionId }), { timeoutMs: 10_000 });
    const last = model.requests.at(-1)?.messages.map((message) => message.content) ?? [];
    expect(last.some((content) => content.startsWith(summariesHeader))).toBe(true);
    await rt.shutdown();

    // After a restart the summaries are still the session's memory.
    const again = new ScriptedModel([{ text: 'yes' }]);
    const second = await createRuntime({ dataDir: dir, model: again, logger: new MemoryLogger(), memory: { limits } });
    await second.waitForAnswer(await second.submit('what do you know about the harbour?', { sessionId }), { timeoutMs: 10_000 });
    const summaries = again.requests[0]?.messages.find((message) => message.content.startsWith(summariesHeader));
    expect(summaries?.content).toMatch(/harbour/);
    await second.shutdown();
  });
});

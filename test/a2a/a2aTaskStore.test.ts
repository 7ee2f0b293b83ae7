import { Role, type Task, TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { A2aTaskStore } from '../../src/a2a/a2aTaskStore.js';
import { resolveA2aLimits } from '../../src/a2a/a2aService.js';

const task = (id: string, state: TaskState, history = 0): Task => ({
  id,
  contextId: 'ctx',
  status: { state, message: undefined, timestamp: new Date(0).toISOString() },
  artifacts: [],
  history: Array.from({ length: history }, (_, i) => ({
    messageId: `${id}-${i}`,
    contextId: 'ctx',
    taskId: id,
    role: Role.ROLE_USER,
    parts: [],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  })),
  metadata: {},
});

describe('the A2A task store', () => {
  it('keeps maxTasks tasks, forgetting the oldest ended one first, and the newest maxHistory messages of each', async () => {
    const store = new A2aTaskStore({ maxTasks: 2, maxHistory: 3 });
    await store.save(task('ended', TaskState.TASK_STATE_COMPLETED));
    await store.save(task('waiting', TaskState.TASK_STATE_INPUT_REQUIRED, 5));
    await store.save(task('new', TaskState.TASK_STATE_WORKING));
    expect(store.size).toBe(2);
    expect(await store.load('ended')).toBeUndefined();
    expect((await store.load('waiting'))?.history.map((message) => message.messageId)).toEqual(['waiting-2', 'waiting-3', 'waiting-4']);
    // None ended: the oldest goes.
    await store.save(task('newer', TaskState.TASK_STATE_WORKING));
    expect(await store.load('waiting')).toBeUndefined();
    expect(await store.load('newer')).toBeDefined();
  });

  it('refuses a bad limit naming it', () => {
    expect(() => resolveA2aLimits({ maxTasks: 0 })).toThrow('a2a.maxTasks: must be > 0');
    expect(() => resolveA2aLimits({ maxHistory: 1.5 })).toThrow('a2a.maxHistory: must be a whole number');
  });
});
